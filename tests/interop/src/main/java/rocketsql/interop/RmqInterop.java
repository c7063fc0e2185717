package rocketsql.interop;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.LitePushConsumer;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.message.MessageBuilder;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;

/**
 * rmq-interop: produce and consume/verify messages with the official RocketMQ
 * Java client, as an independent peer for rocketsql's tests. See usage().
 */
public final class RmqInterop {
    private static final PrintStream OUT = System.out;
    private static final PrintStream ERR = System.err;

    static void usage() {
        OUT.println(String.join("\n",
            "usage: rmq-interop produce --endpoint HOST:PORT --topic T --count N [--type normal|fifo|lite]",
            "                           [--groups G] [--lite-topics K] [--lite-prefix P] [--seed S]",
            "                           [--file PATH] [--tag TAG] [--rate MSGS_PER_S] [--inflight M]",
            "                           [--extra-key PREFIX] [--props K=V,...] [--delay-ms MS]",
            "                           [--message-group G]",
            "       rmq-interop consume --endpoint HOST:PORT --topic T --group GRP --count N [--lite]",
            "                           [--timeout SECONDS] [--id-field id] [--check-order-field FIELD",
            "                           --group-field FIELD] [--print] [--tag TAG] [--threads K]",
            "                           [--invisible SECONDS] [--await SECONDS] [--print-meta]",
            "       (produce, consume: [--access-key AK --secret-key SK] [--tls] for a secured proxy;",
            "        the Java client does not verify the proxy's certificate)",
            "       rmq-interop probe   --endpoint HOST:PORT --normal-topic T --fifo-topic F",
            "                           --lite-topic L --group G --lite-group LG [--fifo-group FG]",
            "",
            "produce: sends N messages (async; FIFO sends each message group in order) and prints",
            "  'sent=N failed=F'; exit 1 if any failed. Bodies are JSON generated from the seed:",
            "  {\"id\":<0..N-1>,\"customer\":\"c<k>\",\"amount\":<number>,\"note\":\"...\"} plus \"group\"",
            "  (FIFO, g<id%G>) or \"lite_topic\" (LITE, <prefix><id%K>); with --file each non-empty",
            "  line is one body (--count defaults to the number of lines). Keys = the id (and",
            "  PREFIX<id> with --extra-key); --props sets user properties (value V-<id>); --delay-ms",
            "  makes a timer message delivered MS ms after it is built (setDeliveryTimestamp);",
            "  --message-group sets one message group for a FIFO topic (instead of g<id%G>).",
            "consume --print-meta prints one line per message: 'meta id=... topic=... tag=...",
            "  keys=k1,k2 group=... lite=... props=k=v;... delivery=<ms|-> born_host=...",
            "  attempt=N received_ms=<wall clock ms>' (keys and props sorted).",
            "  Defaults: type normal, groups 8, lite-topics 10, lite-prefix lt-, seed 1.",
            "consume: receives and acks (SimpleConsumer; --lite: LitePushConsumer bound to the LITE",
            "  parent topic T with no explicit lite subscription, i.e. the group's wildcard) until N",
            "  distinct ids were seen or --timeout seconds (default 30) pass with no new message.",
            "  The id is --id-field's value in a JSON body (default id), else the first key, else",
            "  the message id; --id-field @msgid: always the message id (a changelog's messages).",
            "  Prints 'received=R distinct=D missing=M duplicates=X' (+ missing_ids=..., and",
            "  order_violations=V with --check-order-field). Exit 0 only if all N arrived once and",
            "  in order where checked.",
            "probe: raw gRPC checks of the proxy's behaviour (see docs/ROCKETMQ-NOTES.md)."));
    }

    // ------------------------------------------------------------------ args
    static final class Args {
        final Map<String, String> values = new HashMap<>();
        final Set<String> flags = new HashSet<>();

        Args(String[] argv, int from, Set<String> booleanFlags) {
            for (int i = from; i < argv.length; i++) {
                String a = argv[i];
                if (!a.startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument: " + a);
                }
                String k = a.substring(2);
                int eq = k.indexOf('=');
                if (eq >= 0) {
                    values.put(k.substring(0, eq), k.substring(eq + 1));
                } else if (booleanFlags.contains(k)) {
                    flags.add(k);
                } else {
                    if (i + 1 >= argv.length) {
                        throw new IllegalArgumentException("--" + k + " needs a value");
                    }
                    values.put(k, argv[++i]);
                }
            }
        }

        String str(String k, String def) {
            return values.getOrDefault(k, def);
        }

        String req(String k) {
            String v = values.get(k);
            if (v == null || v.isEmpty()) {
                throw new IllegalArgumentException("--" + k + " is required");
            }
            return v;
        }

        long num(String k, long def) {
            String v = values.get(k);
            if (v == null) {
                return def;
            }
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + k + " must be an integer: " + v);
            }
        }

        double dbl(String k, double def) {
            String v = values.get(k);
            return v == null ? def : Double.parseDouble(v);
        }

        boolean flag(String k) {
            return flags.contains(k);
        }

        void allow(String... keys) {
            Set<String> ok = new HashSet<>(List.of(keys));
            for (String k : values.keySet()) {
                if (!ok.contains(k)) {
                    throw new IllegalArgumentException("unknown option --" + k);
                }
            }
            for (String k : flags) {
                if (!ok.contains(k)) {
                    throw new IllegalArgumentException("unknown option --" + k);
                }
            }
        }
    }

    public static void main(String[] argv) {
        if (argv.length == 0 || argv[0].equals("-h") || argv[0].equals("--help") || argv[0].equals("help")) {
            usage();
            System.exit(argv.length == 0 ? 2 : 0);
        }
        int rc;
        try {
            switch (argv[0]) {
                case "produce":
                    rc = produce(new Args(argv, 1, Set.of("tls")));
                    break;
                case "consume":
                    rc = consume(new Args(argv, 1, Set.of("lite", "print", "progress", "print-meta", "tls")));
                    break;
                case "probe":
                    rc = Probe.run(new Args(argv, 1, Set.of("verbose")));
                    break;
                default:
                    ERR.println("rmq-interop: unknown command '" + argv[0] + "'");
                    usage();
                    rc = 2;
            }
        } catch (IllegalArgumentException e) {
            ERR.println("rmq-interop: " + e.getMessage());
            rc = 2;
        } catch (Throwable t) {
            ERR.println("rmq-interop: failed: " + t);
            t.printStackTrace(ERR);
            rc = 1;
        }
        OUT.flush();
        ERR.flush();
        // the client's threads would keep the JVM alive for a while
        Runtime.getRuntime().halt(rc);
    }

    /*
     * --access-key/--secret-key: ACL credentials (every request signed); --tls: TLS. Note that
     * rocketmq-client-java 5.2.0 does not verify the server's certificate (its RpcClientImpl
     * builds the SSL context with InsecureTrustManagerFactory): the peer checks credentials, not
     * the certificate (docs/ROCKETMQ-NOTES.md §11).
     */
    static String accessKey, secretKey;
    static boolean tls;

    static void security(Args a) {
        accessKey = a.str("access-key", null);
        secretKey = a.str("secret-key", null);
        tls = a.flag("tls");
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException("--access-key and --secret-key go together");
        }
    }

    static ClientConfiguration clientConfig(String endpoint) {
        org.apache.rocketmq.client.apis.ClientConfigurationBuilder b = ClientConfiguration.newBuilder()
            .setEndpoints(endpoint)
            .enableSsl(tls)
            .setRequestTimeout(Duration.ofSeconds(10));
        if (accessKey != null) {
            b.setCredentialProvider(
                new org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider(accessKey, secretKey));
        }
        return b.build();
    }

    // ------------------------------------------------------------------ produce
    static String body(long id, SplittableRandom rnd, String type, int groups, String liteTopic) {
        JsonObject o = new JsonObject();
        o.addProperty("id", id);
        o.addProperty("customer", "c" + rnd.nextInt(100));
        o.addProperty("amount", rnd.nextInt(1_000_000) / 100.0);
        StringBuilder note = new StringBuilder();
        int words = 1 + rnd.nextInt(4);
        for (int w = 0; w < words; w++) {
            if (w > 0) {
                note.append(' ');
            }
            int len = 3 + rnd.nextInt(6);
            for (int c = 0; c < len; c++) {
                note.append((char) ('a' + rnd.nextInt(26)));
            }
        }
        o.addProperty("note", note.toString());
        if (type.equals("fifo")) {
            o.addProperty("group", "g" + (id % groups));
        }
        if (liteTopic != null) {
            o.addProperty("lite_topic", liteTopic);
        }
        return o.toString();
    }

    static int produce(Args a) throws Exception {
        a.allow("endpoint", "topic", "count", "type", "groups", "lite-topics", "lite-prefix", "seed", "file",
            "tag", "rate", "inflight", "extra-key", "props", "delay-ms", "message-group", "access-key",
            "secret-key", "tls");
        security(a);
        String extraKey = a.str("extra-key", null);
        String props = a.str("props", null);
        long delayMs = a.num("delay-ms", -1);
        String fixedGroup = a.str("message-group", null);
        String endpoint = a.req("endpoint");
        String topic = a.req("topic");
        String type = a.str("type", "normal").toLowerCase();
        if (!type.equals("normal") && !type.equals("fifo") && !type.equals("lite")) {
            throw new IllegalArgumentException("--type must be normal, fifo or lite");
        }
        int groups = (int) a.num("groups", 8);
        int liteTopics = (int) a.num("lite-topics", 10);
        String litePrefix = a.str("lite-prefix", "lt-");
        long seed = a.num("seed", 1);
        String tag = a.str("tag", null);
        double rate = a.dbl("rate", 0);
        int inflight = (int) a.num("inflight", 256);
        if (groups < 1 || liteTopics < 1 || inflight < 1) {
            throw new IllegalArgumentException("--groups, --lite-topics and --inflight must be >= 1");
        }

        List<String> fileBodies = null;
        if (a.values.containsKey("file")) {
            fileBodies = new ArrayList<>();
            for (String line : Files.readAllLines(Paths.get(a.req("file")), StandardCharsets.UTF_8)) {
                if (!line.isEmpty()) {
                    fileBodies.add(line);
                }
            }
        }
        long count;
        if (fileBodies != null) {
            count = a.num("count", fileBodies.size());
            if (count > fileBodies.size()) {
                throw new IllegalArgumentException("--count " + count + " but " + a.req("file") + " has only "
                    + fileBodies.size() + " non-empty lines");
            }
        } else {
            count = Long.parseLong(a.req("count"));
        }

        // Build all messages up front (deterministic), then send.
        ClientServiceProvider provider = ClientServiceProvider.loadService();
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Message> msgs = new ArrayList<>((int) count);
        for (long id = 0; id < count; id++) {
            String lite = type.equals("lite") ? litePrefix + (id % liteTopics) : null;
            String b = fileBodies != null ? fileBodies.get((int) id) : body(id, rnd, type, groups, lite);
            MessageBuilder mb = provider.newMessageBuilder()
                .setTopic(topic)
                .setBody(b.getBytes(StandardCharsets.UTF_8));
            if (extraKey != null) {
                mb.setKeys(String.valueOf(id), extraKey + id);
            } else {
                mb.setKeys(String.valueOf(id));
            }
            if (tag != null) {
                mb.setTag(tag);
            }
            if (props != null) {
                for (String kv : props.split(",")) {
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--props wants K=V,...: " + kv);
                    }
                    mb.addProperty(kv.substring(0, eq), kv.substring(eq + 1) + "-" + id);
                }
            }
            if (delayMs >= 0) {
                mb.setDeliveryTimestamp(System.currentTimeMillis() + delayMs);
            }
            if (type.equals("fifo")) {
                mb.setMessageGroup(fixedGroup != null ? fixedGroup : "g" + (id % groups));
            } else if (lite != null) {
                mb.setLiteTopic(lite);
            }
            msgs.add(mb.build());
        }

        AtomicLong sent = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        long t0 = System.nanoTime();
        Producer started;
        try {
            started = provider.newProducerBuilder()
                .setClientConfiguration(clientConfig(endpoint))
                .setTopics(topic)
                .setMaxAttempts(3)
                .build();
        } catch (Exception e) {
            ERR.println("rmq-interop: could not start the producer for topic " + topic + ": " + rootCause(e));
            OUT.println("sent=0 failed=" + count);
            return 1;
        }
        try (Producer producer = started) {
            if (type.equals("fifo")) {
                // Messages of one group are sent one after another (in id order);
                // groups go in parallel.
                int threads = Math.min(groups, 32);
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<CompletableFuture<Void>> done = new ArrayList<>();
                for (int g = 0; g < groups; g++) {
                    final int grp = g;
                    done.add(CompletableFuture.runAsync(() -> {
                        for (long id = grp; id < msgs.size(); id += groups) {
                            pace(t0, id, rate);
                            try {
                                producer.send(msgs.get((int) id));
                                sent.incrementAndGet();
                            } catch (Throwable t) {
                                failed.incrementAndGet();
                                firstError.compareAndSet(null, t);
                            }
                        }
                    }, pool));
                }
                CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).join();
                pool.shutdown();
            } else {
                Semaphore window = new Semaphore(inflight);
                for (long id = 0; id < msgs.size(); id++) {
                    pace(t0, id, rate);
                    window.acquire();
                    CompletableFuture<SendReceipt> f = producer.sendAsync(msgs.get((int) id));
                    f.whenComplete((r, t) -> {
                        if (t == null) {
                            sent.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                            firstError.compareAndSet(null, t);
                        }
                        window.release();
                    });
                }
                window.acquire(inflight);
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        if (firstError.get() != null) {
            ERR.println("rmq-interop: first send error: " + firstError.get());
        }
        ERR.printf("rmq-interop: produce topic=%s type=%s elapsed=%.2fs rate=%.0f msg/s%n", topic, type, secs,
            sent.get() / Math.max(secs, 1e-9));
        OUT.println("sent=" + sent.get() + " failed=" + failed.get());
        return failed.get() == 0 && sent.get() == count ? 0 : 1;
    }

    static void pace(long t0, long index, double rate) {
        if (rate <= 0) {
            return;
        }
        long due = t0 + (long) (index * 1e9 / rate);
        long wait = due - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ------------------------------------------------------------------ consume
    /** Bookkeeping of what arrived, in arrival order. */
    static final class Tally {
        final long expected;
        final String idField;
        final String orderField;
        final String groupField;
        final boolean print;
        boolean printMeta;
        final Map<String, Integer> seen = new HashMap<>();
        final Map<String, Comparable<Object>> lastOrder = new HashMap<>();
        final Map<String, String> lastRaw = new HashMap<>();
        long received;
        long duplicates;
        long orderViolations;
        final List<String> violations = new ArrayList<>();
        volatile long lastNewNanos = System.nanoTime();
        volatile long firstNanos;
        final AtomicBoolean done = new AtomicBoolean();

        Tally(long expected, String idField, String orderField, String groupField, boolean print) {
            this.expected = expected;
            this.idField = idField;
            this.orderField = orderField;
            this.groupField = groupField;
            this.print = print;
        }

        synchronized void record(MessageView mv) {
            byte[] bytes = new byte[mv.getBody().remaining()];
            mv.getBody().duplicate().get(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            JsonObject obj = null;
            try {
                JsonElement e = JsonParser.parseString(text);
                if (e.isJsonObject()) {
                    obj = e.getAsJsonObject();
                }
            } catch (RuntimeException ignored) {
                // not JSON: fall back to the key
            }
            String id = null;
            if ("@msgid".equals(idField)) {
                id = mv.getMessageId().toString(); // every message its own id (a changelog's)
            } else if (obj != null && obj.has(idField) && obj.get(idField).isJsonPrimitive()) {
                id = canonical(obj.get(idField).getAsString());
            }
            if (id == null && !mv.getKeys().isEmpty()) {
                id = mv.getKeys().iterator().next();
            }
            if (id == null) {
                id = mv.getMessageId().toString();
            }
            if (received++ == 0) {
                firstNanos = System.nanoTime();
            }
            Integer n = seen.merge(id, 1, Integer::sum);
            if (n > 1) {
                duplicates++;
            } else {
                lastNewNanos = System.nanoTime();
            }
            if (orderField != null && obj != null) {
                String grp = groupField != null && obj.has(groupField) ? obj.get(groupField).getAsString() : "";
                if (obj.has(orderField)) {
                    String raw = obj.get(orderField).getAsString();
                    Comparable<Object> v = orderValue(raw);
                    Comparable<Object> prev = lastOrder.get(grp);
                    if (prev != null && v.compareTo(prev) <= 0) {
                        orderViolations++;
                        if (violations.size() < 5) {
                            violations.add(groupField + "=" + grp + " " + orderField + "=" + raw + " after "
                                + lastRaw.get(grp));
                        }
                    }
                    lastOrder.put(grp, v);
                    lastRaw.put(grp, raw);
                }
            }
            if (print) {
                OUT.println(text);
            }
            if (printMeta) {
                OUT.println(metaLine(id, mv));
            }
            if (seen.size() >= expected) {
                done.set(true);
            }
        }

        static String canonical(String s) {
            // "12" and "12.0" name the same id
            try {
                double d = Double.parseDouble(s);
                if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                    return Long.toString((long) d);
                }
            } catch (NumberFormatException ignored) {
                // a string id
            }
            return s;
        }

        @SuppressWarnings("unchecked")
        static Comparable<Object> orderValue(String s) {
            try {
                return (Comparable<Object>) (Comparable<?>) Double.valueOf(s);
            } catch (NumberFormatException e) {
                return (Comparable<Object>) (Comparable<?>) s;
            }
        }

        synchronized int report(boolean checkOrder) {
            long distinct = seen.size();
            long missing = Math.max(0, expected - distinct);
            List<String> missingIds = new ArrayList<>();
            if (missing > 0) {
                for (long i = 0; i < expected && missingIds.size() < 10; i++) {
                    if (!seen.containsKey(Long.toString(i))) {
                        missingIds.add(Long.toString(i));
                    }
                }
            }
            StringBuilder sb = new StringBuilder();
            sb.append("received=").append(received).append(" distinct=").append(distinct)
                .append(" missing=").append(missing).append(" duplicates=").append(duplicates);
            if (checkOrder) {
                sb.append(" order_violations=").append(orderViolations);
            }
            OUT.println(sb);
            if (!missingIds.isEmpty()) {
                OUT.println("missing_ids=" + String.join(",", missingIds) + (missing > missingIds.size() ? ",..." : ""));
            }
            if (duplicates > 0) {
                List<String> d = new ArrayList<>();
                for (String k : new TreeSet<>(seen.keySet())) {
                    int c = seen.get(k);
                    if (c > 1 && d.size() < 10) {
                        d.add(k + "x" + c);
                    }
                }
                OUT.println("duplicate_ids=" + String.join(",", d));
            }
            for (String v : violations) {
                OUT.println("order_violation: " + v);
            }
            boolean ok = missing == 0 && duplicates == 0 && (!checkOrder || orderViolations == 0);
            return ok ? 0 : 1;
        }
    }

    /* One 'meta ...' line of --print-meta (keys and properties sorted, so tests can compare). */
    static String metaLine(String id, MessageView mv) {
        StringBuilder sb = new StringBuilder("meta id=").append(id);
        sb.append(" topic=").append(mv.getTopic());
        sb.append(" tag=").append(mv.getTag().orElse("-"));
        sb.append(" keys=").append(mv.getKeys().isEmpty() ? "-" : String.join(",", new TreeSet<>(mv.getKeys())));
        sb.append(" group=").append(mv.getMessageGroup().orElse("-"));
        sb.append(" lite=").append(mv.getLiteTopic().orElse("-"));
        StringBuilder p = new StringBuilder();
        for (String k : new TreeSet<>(mv.getProperties().keySet())) {
            p.append(p.length() > 0 ? ";" : "").append(k).append('=').append(mv.getProperties().get(k));
        }
        sb.append(" props=").append(p.length() > 0 ? p : "-");
        sb.append(" delivery=").append(mv.getDeliveryTimestamp().map(String::valueOf).orElse("-"));
        sb.append(" born_host=").append(mv.getBornHost());
        sb.append(" attempt=").append(mv.getDeliveryAttempt());
        sb.append(" received_ms=").append(System.currentTimeMillis());
        return sb.toString();
    }

    static int consume(Args a) throws Exception {
        a.allow("endpoint", "topic", "group", "count", "lite", "timeout", "id-field", "check-order-field",
            "group-field", "print", "tag", "threads", "invisible", "await", "max-cache", "clients", "progress",
            "print-meta", "access-key", "secret-key", "tls");
        security(a);
        String endpoint = a.req("endpoint");
        String topic = a.req("topic");
        String group = a.req("group");
        long count = Long.parseLong(a.req("count"));
        long timeout = a.num("timeout", 30);
        String orderField = a.str("check-order-field", null);
        String groupField = a.str("group-field", null);
        if (orderField != null && groupField == null) {
            throw new IllegalArgumentException("--check-order-field needs --group-field");
        }
        Tally tally = new Tally(count, a.str("id-field", "id"), orderField, groupField, a.flag("print"));
        tally.printMeta = a.flag("print-meta");
        long t0 = System.nanoTime();
        if (a.flag("lite")) {
            consumeLite(a, endpoint, topic, group, tally, timeout);
        } else {
            consumeSimple(a, endpoint, topic, group, tally, timeout);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        ERR.printf("rmq-interop: consume topic=%s group=%s%s elapsed=%.2fs first_message_after=%.2fs%n", topic,
            group, a.flag("lite") ? " (lite wildcard)" : "", secs,
            tally.firstNanos == 0 ? -1.0 : (tally.firstNanos - t0) / 1e9);
        return tally.report(orderField != null);
    }

    static boolean idle(Tally t, long timeoutSec) {
        return System.nanoTime() - t.lastNewNanos > TimeUnit.SECONDS.toNanos(timeoutSec);
    }

    static void consumeSimple(Args a, String endpoint, String topic, String group, Tally tally, long timeout)
        throws Exception {
        int threads = (int) a.num("threads", 4);
        Duration invisible = Duration.ofSeconds(a.num("invisible", 30));
        Duration await = Duration.ofSeconds(Math.max(1, Math.min(a.num("await", 5), timeout)));
        String tag = a.str("tag", "*");
        ClientServiceProvider provider = ClientServiceProvider.loadService();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        AtomicInteger errors = new AtomicInteger();
        SimpleConsumer started;
        try {
            started = provider.newSimpleConsumerBuilder()
                .setClientConfiguration(clientConfig(endpoint))
                .setConsumerGroup(group)
                .setAwaitDuration(await)
                .setSubscriptionExpressions(Collections.singletonMap(topic,
                    new FilterExpression(tag, FilterExpressionType.TAG)))
                .build();
        } catch (Exception e) {
            ERR.println("rmq-interop: could not start the consumer (topic " + topic + ", group " + group + "): "
                + rootCause(e));
            return;
        }
        try (SimpleConsumer consumer = started) {
            tally.lastNewNanos = System.nanoTime();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                workers.add(CompletableFuture.runAsync(() -> {
                    while (!tally.done.get() && !idle(tally, timeout)) {
                        List<MessageView> batch;
                        try {
                            batch = consumer.receive(32, invisible);
                        } catch (Throwable t) {
                            errors.incrementAndGet();
                            firstError.compareAndSet(null, t);
                            sleepQuietly(200);
                            continue;
                        }
                        List<CompletableFuture<Void>> acks = new ArrayList<>(batch.size());
                        for (MessageView mv : batch) {
                            tally.record(mv);
                            acks.add(consumer.ackAsync(mv));
                        }
                        for (CompletableFuture<Void> f : acks) {
                            try {
                                f.join();
                            } catch (Throwable t) {
                                errors.incrementAndGet();
                                firstError.compareAndSet(null, t);
                            }
                        }
                    }
                }, pool));
            }
            CompletableFuture.allOf(workers.toArray(new CompletableFuture[0])).join();
            pool.shutdownNow();
        }
        if (firstError.get() != null) {
            ERR.println("rmq-interop: " + errors.get() + " receive/ack errors, first: " + firstError.get());
        }
    }

    static void consumeLite(Args a, String endpoint, String topic, String group, Tally tally, long timeout)
        throws Exception {
        int threads = (int) a.num("threads", 8);
        // One lite push consumer keeps a single receive in flight; a few
        // clients in the same group share the lite topics and go faster.
        int clients = (int) a.num("clients", 1);
        ClientServiceProvider provider = ClientServiceProvider.loadService();
        List<LitePushConsumer> consumers = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                LitePushConsumer consumer;
                try {
                    consumer = provider.newLitePushConsumerBuilder()
                    .setClientConfiguration(clientConfig(endpoint))
                    .bindTopic(topic)
                    .setConsumerGroup(group)
                    .setConsumptionThreadCount(threads)
                    // the proxy answers FORBIDDEN to a lite consumer holding more than
                    // maxLiteRenewNumPerChannel (100) unacked messages: cache fewer
                    .setMaxCacheMessageCount((int) a.num("max-cache", 64))
                    .setMessageListener(mv -> {
                        tally.record(mv);
                        return ConsumeResult.SUCCESS;
                    })
                    .build();
                } catch (Exception e) {
                    ERR.println("rmq-interop: could not start the lite consumer (topic " + topic + ", group " + group
                        + "): " + rootCause(e));
                    return;
                }
                consumers.add(consumer);
                // Client 5.2.0 sends its first COMPLETE_ADD (which is what registers
                // a wildcard group's client on the broker) only 30 s after start;
                // send it now.
                try {
                    java.lang.reflect.Method sync = consumer.getClass().getDeclaredMethod("syncAllLiteSubscription");
                    sync.setAccessible(true);
                    sync.invoke(consumer);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    ERR.println("rmq-interop: could not trigger the first lite subscription sync (" + e
                        + "); the client will send it after 30 s");
                }
            }
            tally.lastNewNanos = System.nanoTime();
            long nextProgress = System.nanoTime() + 2_000_000_000L;
            while (!tally.done.get() && !idle(tally, timeout)) {
                sleepQuietly(100);
                if (a.flag("progress") && System.nanoTime() > nextProgress) {
                    nextProgress += 2_000_000_000L;
                    synchronized (tally) {
                        ERR.println("rmq-interop: progress received=" + tally.received + " distinct="
                            + tally.seen.size());
                    }
                }
            }
            // let the last acks go out before closing
            sleepQuietly(500);
        } finally {
            for (LitePushConsumer c : consumers) {
                try {
                    c.close();
                } catch (IOException e) {
                    ERR.println("rmq-interop: close: " + e);
                }
            }
        }
    }

    static String rootCause(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c.toString().replace('\n', ' ');
    }

    static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
