// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The rocketsql authors
//
// DbzBench: the Debezium side of bench/cdc. Debezium's embedded engine with its PostgreSQL
// connector (pgoutput) and the JSON converter (schemas off, as rocketsql's debezium-json
// writes them) streams one table from an existing slot and publication; every change event
// is counted and dropped (a blackhole), or also written to a file (out=FILE, one JSON a
// line). It ends once events=N have arrived (exit 0) or after timeout-s (exit 1) and prints
//
//   dbz: events=N startup_s=S stream_s=T events_per_s=R p50_ms=A p99_ms=B max_ms=C
//
// stream_s is from the first event to the last; p50/p99/max are commit-to-event: the
// event's source.ts_ms (the transaction's commit time, from pgoutput's BEGIN) against the
// time the handler received it.
//
// Arguments are key=value: host port db user password schema table slot publication events
// [out] [timeout-s] [offsets] (offsets: the file of Kafka Connect's FileOffsetBackingStore;
// default in memory).
package rocketsql.bench;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.BufferedWriter;
import java.io.FileWriter;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public final class DbzBench {
  private static long count;
  private static long firstMs;
  private static long lastMs;
  private static long[] lat;
  private static int nlat;
  private static BufferedWriter out;

  private static String need(Map<String, String> a, String k) {
    String v = a.get(k);
    if (v == null) {
      System.err.println("dbz: missing argument " + k + "=...");
      System.exit(64);
    }
    return v;
  }

  // source.ts_ms of a JSON change event, without parsing the whole event: the first
  // "ts_ms" after "source" (the envelope's own ts_ms comes after the source block).
  private static long sourceTsMs(String v) {
    int s = v.indexOf("\"source\":");
    if (s < 0) return -1;
    int t = v.indexOf("\"ts_ms\":", s);
    if (t < 0) return -1;
    long n = 0;
    for (int i = t + 8; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') break;
      n = n * 10 + (c - '0');
    }
    return n;
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String s : argv) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        System.err.println("dbz: arguments are key=value, not " + s);
        System.exit(64);
      }
      a.put(s.substring(0, eq), s.substring(eq + 1));
    }
    final long want = Long.parseLong(need(a, "events"));
    final long timeoutS = Long.parseLong(a.getOrDefault("timeout-s", "600"));
    lat = new long[(int) Math.min(want, 50_000_000L)];
    if (a.containsKey("out")) out = new BufferedWriter(new FileWriter(a.get("out")), 1 << 16);

    Properties p = new Properties();
    p.setProperty("name", "dbz-bench");
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    if (a.containsKey("offsets")) {
      p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
      p.setProperty("offset.storage.file.filename", a.get("offsets"));
    } else {
      p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    }
    p.setProperty("offset.flush.interval.ms", "1000");
    p.setProperty("database.hostname", need(a, "host"));
    p.setProperty("database.port", need(a, "port"));
    p.setProperty("database.user", need(a, "user"));
    p.setProperty("database.password", a.getOrDefault("password", ""));
    p.setProperty("database.dbname", need(a, "db"));
    p.setProperty("topic.prefix", "bench");
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", need(a, "slot"));
    p.setProperty("publication.name", need(a, "publication"));
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("table.include.list", need(a, "schema") + "." + need(a, "table"));
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("decimal.handling.mode", "string");
    p.setProperty("converter.schemas.enable", "false");
    p.setProperty("key.converter.schemas.enable", "false");
    p.setProperty("value.converter.schemas.enable", "false");

    final CountDownLatch done = new CountDownLatch(1);
    final long t0 = System.currentTimeMillis();
    DebeziumEngine<ChangeEvent<String, String>> engine = DebeziumEngine.create(Json.class)
        .using(p)
        .notifying((List<ChangeEvent<String, String>> records,
                    DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer) -> {
          long now = System.currentTimeMillis();
          for (ChangeEvent<String, String> r : records) {
            String v = r.value();
            if (v == null) {
              committer.markProcessed(r);
              continue;
            }
            if (count == 0) firstMs = now;
            count++;
            long ts = sourceTsMs(v);
            if (ts > 0 && nlat < lat.length) lat[nlat++] = now - ts;
            if (out != null) {
              try {
                out.write(v);
                out.write('\n');
              } catch (IOException e) {
                throw new RuntimeException(e);
              }
            }
            committer.markProcessed(r);
          }
          lastMs = now;
          committer.markBatchFinished();
          if (count >= want) done.countDown();
        })
        .using((boolean success, String message, Throwable error) -> {
          if (!success) {
            System.err.println("dbz: engine stopped: " + message + (error != null ? ": " + error : ""));
            done.countDown();
          }
        })
        .build();
    ExecutorService ex = Executors.newSingleThreadExecutor();
    ex.execute(engine);
    boolean ok = done.await(timeoutS, TimeUnit.SECONDS) && count >= want;
    try {
      engine.close();
    } catch (Exception e) {
      // already shut down by a failure: reported above
    }
    ex.shutdownNow();
    ex.awaitTermination(30, TimeUnit.SECONDS);
    if (out != null) out.close();
    Arrays.sort(lat, 0, nlat);
    long p50 = nlat > 0 ? lat[(int) Math.min(nlat - 1, (long) (nlat * 0.50))] : -1;
    long p99 = nlat > 0 ? lat[(int) Math.min(nlat - 1, (long) (nlat * 0.99))] : -1;
    long max = nlat > 0 ? lat[nlat - 1] : -1;
    double stream = Math.max(lastMs - firstMs, 1) / 1000.0;
    System.out.printf("dbz: events=%d startup_s=%.2f stream_s=%.2f events_per_s=%.0f p50_ms=%d p99_ms=%d max_ms=%d%n",
        count, (firstMs - t0) / 1000.0, stream, count / stream, p50, p99, max);
    if (!ok) {
      System.err.println("dbz: error: " + count + " of " + want + " events in " + timeoutS + " s");
      System.exit(1);
    }
    System.exit(0);
  }
}
