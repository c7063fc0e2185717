# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# bench/lib/java-build.sh: sourced by the benches' Java launchers (bench/changelog/flink/flink-sql,
# bench/relay/java/rmq-relay, bench/cdc/dbz/dbz-bench). One way to fetch and compile:
#
#   bench_java_build NAME HERE OUT
#
# resolves the classpath of HERE/pom.xml with Maven (`dependency:build-classpath`, Maven
# Central only through scripts/rocketmq.d/maven-settings.xml or RSQL_MVN_SETTINGS; the jars
# stay in ~/.m2) into OUT/classpath.txt, again when the pom changed or a jar is gone, and
# compiles HERE/src/main/java with javac into OUT/classes when a source is newer than the last
# build. Under a lock (OUT/.lock), so two runs do not build at once. NAME prefixes messages.
# Afterwards: java -cp "OUT/classes:$(cat OUT/classpath.txt)" ...

bench_java_build() {
  local name=$1 here=$2 out=$3
  local repo settings
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  settings=${RSQL_MVN_SETTINGS:-$repo/scripts/rocketmq.d/maven-settings.xml}
  command -v java >/dev/null 2>&1 || { printf '%s: error: java not found (run scripts/setup)\n' "$name" >&2; return 1; }
  command -v javac >/dev/null 2>&1 || { printf '%s: error: javac not found (run scripts/setup)\n' "$name" >&2; return 1; }
  mkdir -p "$out"
  (
    flock 9
    cp="$out/classpath.txt"
    want=$(cksum < "$here/pom.xml")
    need_cp=1
    if [ -s "$cp" ] && [ -f "$cp.stamp" ] && [ "$(cat "$cp.stamp")" = "$want" ]; then
      need_cp=0
      IFS=: read -r -a jars < "$cp" || true
      for jar in "${jars[@]}"; do [ -f "$jar" ] || { need_cp=1; break; }; done
    fi
    if [ "$need_cp" = 1 ]; then
      command -v mvn >/dev/null 2>&1 || { printf '%s: error: mvn not found (run scripts/setup)\n' "$name" >&2; exit 1; }
      echo "$name: resolving the classpath of $here/pom.xml with Maven" >&2
      if ! mvn -q -B -s "$settings" -f "$here/pom.xml" dependency:build-classpath \
          -Dmdep.outputFile="$cp.tmp" >"$out/mvn.log" 2>&1; then
        tail -n 30 "$out/mvn.log" >&2
        printf '%s: error: Maven could not resolve the classpath (log: %s)\n' "$name" "$out/mvn.log" >&2
        exit 1
      fi
      mv "$cp.tmp" "$cp"
      echo "$want" > "$cp.stamp"
      rm -f "$out/classes/.built"
    fi
    if [ ! -f "$out/classes/.built" ] ||
       [ -n "$(find "$here/src" -name '*.java' -newer "$out/classes/.built" -print -quit)" ]; then
      echo "$name: compiling" >&2
      rm -rf "$out/classes.new"
      mkdir -p "$out/classes.new"
      mapfile -t srcs < <(find "$here/src/main/java" -name '*.java' | sort)
      if ! javac -nowarn --release 17 -encoding UTF-8 -d "$out/classes.new" -cp "$(cat "$cp")" "${srcs[@]}" \
          >"$out/javac.log" 2>&1; then
        cat "$out/javac.log" >&2
        rm -rf "$out/classes.new"
        printf '%s: error: compilation failed\n' "$name" >&2
        exit 1
      fi
      touch "$out/classes.new/.built"
      rm -rf "$out/classes"
      mv "$out/classes.new" "$out/classes"
    fi
  ) 9>"$out/.lock"
}
