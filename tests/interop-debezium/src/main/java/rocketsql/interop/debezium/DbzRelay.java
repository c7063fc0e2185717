package rocketsql.interop.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;

/**
 * dbz-relay: Debezium's embedded engine (PostgreSQL connector, pgoutput) captures tables of
 * a PostgreSQL database, and the official RocketMQ Java client sends each change event, as
 * debezium-json, to a FIFO topic. The message group and the message key are the row's key
 * (its columns' values joined by '|'), so the events of one key are stored, and delivered to
 * an orderly consumer group, in the order the database committed them.
 *
 * <p>Delivery is at-least-once: a batch of events from the engine is sent completely (each
 * key's events one after another, different keys in parallel) before its offsets are marked
 * processed; the offsets live in a file (--work DIR/offsets.dat), so a restarted relay goes
 * on after the last batch that was sent.
 */
public final class DbzRelay {
    static final PrintStream OUT = System.out;
    static final PrintStream ERR = System.err;
    static final ObjectMapper JSON = new ObjectMapper();

    static final String[] USAGE = {
        "usage: dbz-relay --endpoint HOST:PORT --topic T --work DIR --table SCHEMA.TABLE[,...]",
        "                 --pg-port P [--pg-host H] [--pg-user U] [--pg-password PW] [--pg-db DB]",
        "                 [--name N] [--slot S] [--publication P] [--schema-include]",
        "                 [--snapshot-mode initial|no_data] [--send-attempts K]",
        "",
        "Captures the tables with Debezium (plugin pgoutput; the replication slot S and the",
        "publication P, made for those tables when missing) and sends each change event to the",
        "FIFO topic T: body = the event's value as debezium-json (JsonConverter; without the",
        "schema envelope unless --schema-include), message group and key = the row's key.",
        "Tombstones are off (RocketMQ has no log compaction). NUMERIC is sent as a string",
        "(decimal.handling.mode=string: exact), TIMESTAMP as epoch milliseconds",
        "(time.precision.mode=connect). DIR holds offsets.dat (Debezium's offsets) and status:",
        "one line 'sent=N' (events sent so far, rewritten after every batch); the same line is",
        "printed at most once a second while events flow. Runs until SIGTERM/SIGINT; exit 1 when",
        "the engine stops on an error (a send that failed --send-attempts times, default 5).",
    };

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        boolean schemaInclude = false;
        for (int i = 0; i < argv.length; i++) {
            String k = argv[i];
            if (k.equals("-h") || k.equals("--help")) {
                for (String l : USAGE) {
                    OUT.println(l);
                }
                return;
            }
            if (k.equals("--schema-include")) {
                schemaInclude = true;
                continue;
            }
            if (!k.startsWith("--") || i + 1 >= argv.length) {
                ERR.println("dbz-relay: bad argument '" + k + "' (--help)");
                System.exit(2);
            }
            a.put(k.substring(2), argv[++i]);
        }
        for (String req : new String[] {"endpoint", "topic", "work", "table", "pg-port"}) {
            if (!a.containsKey(req)) {
                ERR.println("dbz-relay: --" + req + " is required (--help)");
                System.exit(2);
            }
        }
        String name = a.getOrDefault("name", "dbz");
        Path work = Paths.get(a.get("work"));
        Files.createDirectories(work);

        Properties p = new Properties();
        p.setProperty("name", name);
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        p.setProperty("offset.storage.file.filename", work.resolve("offsets.dat").toString());
        // offsets are written after every batch that was sent
        p.setProperty("offset.flush.interval.ms", "0");
        p.setProperty("database.hostname", a.getOrDefault("pg-host", "127.0.0.1"));
        p.setProperty("database.port", a.get("pg-port"));
        p.setProperty("database.user", a.getOrDefault("pg-user", System.getProperty("user.name")));
        if (a.containsKey("pg-password")) {
            p.setProperty("database.password", a.get("pg-password"));
        }
        p.setProperty("database.dbname", a.getOrDefault("pg-db", "rocketsql"));
        p.setProperty("topic.prefix", name);
        p.setProperty("table.include.list", a.get("table"));
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", a.getOrDefault("slot", name));
        p.setProperty("publication.name", a.getOrDefault("publication", name));
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("snapshot.mode", a.getOrDefault("snapshot-mode", "initial"));
        p.setProperty("decimal.handling.mode", "string");
        p.setProperty("time.precision.mode", "connect");
        p.setProperty("tombstones.on.delete", "false");
        p.setProperty("poll.interval.ms", "50");
        // the key is read here (never sent with its schema); the value is the message body
        p.setProperty("key.converter.schemas.enable", "false");
        p.setProperty("value.converter.schemas.enable", Boolean.toString(schemaInclude));

        int attempts = Integer.parseInt(a.getOrDefault("send-attempts", "5"));
        ClientConfiguration cc = ClientConfiguration.newBuilder()
            .setEndpoints(a.get("endpoint"))
            .setRequestTimeout(Duration.ofSeconds(10))
            .build();
        Producer producer = ClientServiceProvider.loadService().newProducerBuilder()
            .setClientConfiguration(cc)
            .setTopics(a.get("topic"))
            .setMaxAttempts(3)
            .build();

        Sender sender = new Sender(producer, a.get("topic"), attempts, work.resolve("status"));
        sender.writeStatus();
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<String> failure = new AtomicReference<>();
        DebeziumEngine<ChangeEvent<String, String>> engine = DebeziumEngine.create(Json.class)
            .using(p)
            .using((success, message, error) -> {
                if (!success) {
                    failure.set(message + (error != null ? ": " + rootCause(error) : ""));
                }
                done.countDown();
            })
            .notifying(sender)
            .build();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        Thread hook = new Thread(() -> {
            try {
                engine.close();
                done.await(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                ERR.println("dbz-relay: stopping the engine: " + rootCause(e));
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        ERR.println("dbz-relay: capturing " + a.get("table") + " (slot " + p.getProperty("slot.name")
            + ", publication " + p.getProperty("publication.name") + ") into FIFO topic " + a.get("topic")
            + (schemaInclude ? " with the schema envelope" : ""));
        runner.execute(engine);
        done.await();
        runner.shutdown();
        OUT.println("sent=" + sender.sent);
        OUT.flush();
        try {
            producer.close();
        } catch (IOException e) {
            ERR.println("dbz-relay: closing the producer: " + e);
        }
        if (failure.get() != null) {
            ERR.println("dbz-relay: the engine stopped: " + failure.get());
            Runtime.getRuntime().halt(1);
        }
    }

    static String rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.toString();
    }

    /** The message group (and key) of an event: its key's column values joined by '|'. */
    static String groupOf(String keyJson) throws IOException {
        if (keyJson == null) {
            return "(no key)";
        }
        JsonNode k = JSON.readTree(keyJson);
        if (!k.isObject()) {
            return k.isValueNode() ? k.asText() : k.toString();
        }
        StringBuilder sb = new StringBuilder();
        Iterator<JsonNode> it = k.elements();
        while (it.hasNext()) {
            JsonNode v = it.next();
            if (sb.length() > 0) {
                sb.append('|');
            }
            sb.append(v.isValueNode() ? v.asText() : v.toString());
        }
        return sb.toString();
    }

    static final class Sender implements DebeziumEngine.ChangeConsumer<ChangeEvent<String, String>> {
        final Producer producer;
        final String topic;
        final int attempts;
        final Path status;
        final ClientServiceProvider provider = ClientServiceProvider.loadService();
        volatile long sent;
        long lastPrint;

        Sender(Producer producer, String topic, int attempts, Path status) {
            this.producer = producer;
            this.topic = topic;
            this.attempts = attempts;
            this.status = status;
        }

        @Override
        public void handleBatch(List<ChangeEvent<String, String>> records,
                DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer)
                throws InterruptedException {
            // each key's events form a chain (one send after the other's receipt); the chains
            // of different keys go in parallel; the batch is done when every chain is
            Map<String, CompletableFuture<SendReceipt>> chains = new LinkedHashMap<>();
            int n = 0;
            for (ChangeEvent<String, String> r : records) {
                if (r.value() == null) {
                    continue;
                }
                String group;
                try {
                    group = groupOf(r.key());
                } catch (IOException e) {
                    throw new IllegalStateException("the key of a change event is not JSON: " + r.key(), e);
                }
                Message m = provider.newMessageBuilder()
                    .setTopic(topic)
                    .setBody(r.value().getBytes(StandardCharsets.UTF_8))
                    .setKeys(group)
                    .setMessageGroup(group)
                    .build();
                CompletableFuture<SendReceipt> prev = chains.get(group);
                chains.put(group, prev == null ? send(m, 1)
                    : prev.thenCompose(x -> send(m, 1)));
                n++;
            }
            try {
                CompletableFuture.allOf(chains.values().toArray(new CompletableFuture[0])).get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("sending to " + topic + " failed: " + rootCause(e), e);
            }
            for (ChangeEvent<String, String> r : records) {
                committer.markProcessed(r);
            }
            committer.markBatchFinished();
            sent += n;
            writeStatus();
            long now = System.nanoTime();
            if (now - lastPrint > 1_000_000_000L) {
                lastPrint = now;
                OUT.println("sent=" + sent);
                OUT.flush();
            }
        }

        /** Sends m; a failure is tried again (after 1 s) until `attempts` sends failed. */
        CompletableFuture<SendReceipt> send(Message m, int attempt) {
            return producer.sendAsync(m).handle((r, t) -> {
                if (t == null) {
                    return CompletableFuture.completedFuture(r);
                }
                if (attempt >= attempts) {
                    return CompletableFuture.<SendReceipt>failedFuture(t);
                }
                ERR.println("dbz-relay: send attempt " + attempt + " failed (" + rootCause(t) + "); again in 1 s");
                return CompletableFuture.supplyAsync(() -> null,
                        CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS))
                    .thenCompose(x -> send(m, attempt + 1));
            }).thenCompose(f -> f);
        }

        void writeStatus() {
            try {
                Path tmp = status.resolveSibling(status.getFileName() + ".tmp");
                Files.write(tmp, ("sent=" + sent + "\n").getBytes(StandardCharsets.UTF_8));
                Files.move(tmp, status, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new IllegalStateException("writing " + status + ": " + e, e);
            }
        }
    }
}
