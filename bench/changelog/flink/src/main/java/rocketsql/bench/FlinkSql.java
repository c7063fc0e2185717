// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The rocketsql authors
package rocketsql.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

/**
 * Runs a SQL script in a streaming TableEnvironment on a local MiniCluster: statements are
 * separated by a ';' at the end of a line; SET 'key' = 'value' lines set the configuration
 * before the first statement runs; an INSERT is run and awaited. Prints one line
 * "flink: job_s=S" with the seconds from the first statement to the end of the last job
 * (JVM start-up and class loading before it are not in it).
 *
 * Usage: FlinkSql SCRIPT [PARALLELISM]
 */
public final class FlinkSql {
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: FlinkSql SCRIPT [PARALLELISM]");
            System.exit(2);
        }
        String text = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
        List<String> stmts = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String t = line.strip();
            if (t.startsWith("--")) {
                continue;
            }
            cur.append(line).append('\n');
            if (t.endsWith(";")) {
                String s = cur.toString().strip();
                stmts.add(s.substring(0, s.length() - 1));
                cur.setLength(0);
            }
        }
        if (!cur.toString().isBlank()) {
            stmts.add(cur.toString().strip());
        }
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", args.length > 1 ? args[1] : "1");
        List<String> rest = new ArrayList<>();
        for (String s : stmts) {
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("(?is)^SET\\s+'([^']+)'\\s*=\\s*'([^']*)'$").matcher(s);
            if (m.matches()) {
                conf.setString(m.group(1), m.group(2));
            } else {
                rest.add(s);
            }
        }
        EnvironmentSettings settings = EnvironmentSettings.newInstance().inStreamingMode()
                .withConfiguration(conf).build();
        TableEnvironment env = TableEnvironment.create(settings);
        long t0 = System.nanoTime();
        for (String s : rest) {
            TableResult r = env.executeSql(s);
            if (s.regionMatches(true, 0, "INSERT", 0, 6)) {
                r.await();
            } else if (s.regionMatches(true, 0, "EXPLAIN", 0, 7)) {
                r.print();
            }
        }
        System.out.printf("flink: job_s=%.3f%n", (System.nanoTime() - t0) / 1e9);
        System.exit(0);
    }
}
