// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The rocketsql authors
package rocketsql.bench;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;

/**
 * rmq-relay: the reference relay of bench/relay, on the official RocketMQ Java client.
 *
 * <p>The same at-least-once loop rocketsql runs for {@code INSERT INTO dst SELECT * FROM src}
 * between two rocketmq-grpc tables: {@code --concurrency} threads each call
 * {@code SimpleConsumer.receive(batch, invisible)}, send every message's body to the target
 * topic with one shared {@code Producer} (asynchronously, so a whole batch is in flight at
 * once), and ack a source message only after its send succeeded (a failed send is not acked:
 * the message comes back after its invisible duration). A thread takes its next batch once
 * every message of the previous one was sent and acked. The relay ends once no message arrived
 * for {@code --idle-timeout} and nothing is in flight (like rocketsql's
 * {@code scan.idle-timeout}).
 *
 * <p>Prints one line on stdout: {@code relayed= send_failed= ack_failed= receive_errors=
 * jvm_start_to_first_s= first_to_last_s= close_s=}; exit 0 when nothing failed.
 */
public final class RmqRelay {
    private RmqRelay() {
    }

    static void usage() {
        System.out.println(String.join("\n",
            "usage: rmq-relay --endpoint HOST:PORT --source-topic S --target-topic T --group G",
            "                 [--batch 32] [--concurrency 4] [--invisible 60s] [--await 5s]",
            "                 [--idle-timeout 3s] [--max-attempts 3] [--request-timeout 3s]",
            "Relays every message of S to T (body only) until no message arrived for --idle-timeout.",
            "Durations: a number with ms, s or min (a bare number is milliseconds)."));
    }

    static long durationMs(String s) {
        String v = s.trim().toLowerCase();
        long mult = 1;
        if (v.endsWith("ms")) {
            v = v.substring(0, v.length() - 2);
        } else if (v.endsWith("min")) {
            v = v.substring(0, v.length() - 3);
            mult = 60_000;
        } else if (v.endsWith("s")) {
            v = v.substring(0, v.length() - 1);
            mult = 1000;
        }
        try {
            return Long.parseLong(v) * mult;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration: " + s);
        }
    }

    static Map<String, String> parse(String[] argv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument: " + a);
            }
            String k = a.substring(2);
            int eq = k.indexOf('=');
            if (eq >= 0) {
                m.put(k.substring(0, eq), k.substring(eq + 1));
            } else {
                if (i + 1 >= argv.length) {
                    throw new IllegalArgumentException("--" + k + " needs a value");
                }
                m.put(k, argv[++i]);
            }
        }
        for (String k : m.keySet()) {
            if (!List.of("endpoint", "source-topic", "target-topic", "group", "batch", "concurrency",
                "invisible", "await", "idle-timeout", "max-attempts", "request-timeout").contains(k)) {
                throw new IllegalArgumentException("unknown option --" + k);
            }
        }
        return m;
    }

    static String req(Map<String, String> m, String k) {
        String v = m.get(k);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("--" + k + " is required");
        }
        return v;
    }

    public static void main(String[] argv) {
        if (argv.length == 0 || argv[0].equals("-h") || argv[0].equals("--help")) {
            usage();
            System.exit(argv.length == 0 ? 2 : 0);
        }
        int rc;
        try {
            rc = run(parse(argv));
        } catch (IllegalArgumentException e) {
            System.err.println("rmq-relay: " + e.getMessage());
            rc = 2;
        } catch (Throwable t) {
            System.err.println("rmq-relay: failed: " + t);
            t.printStackTrace();
            rc = 1;
        }
        System.out.flush();
        System.err.flush();
        // the client's non-daemon threads would keep the JVM alive for a while
        Runtime.getRuntime().halt(rc);
    }

    static int run(Map<String, String> a) throws Exception {
        String endpoint = req(a, "endpoint");
        String source = req(a, "source-topic");
        String target = req(a, "target-topic");
        String group = req(a, "group");
        int batch = Integer.parseInt(a.getOrDefault("batch", "32"));
        int concurrency = Integer.parseInt(a.getOrDefault("concurrency", "4"));
        Duration invisible = Duration.ofMillis(durationMs(a.getOrDefault("invisible", "60s")));
        Duration await = Duration.ofMillis(durationMs(a.getOrDefault("await", "5s")));
        long idleMs = durationMs(a.getOrDefault("idle-timeout", "3s"));
        int maxAttempts = Integer.parseInt(a.getOrDefault("max-attempts", "3"));
        Duration requestTimeout = Duration.ofMillis(durationMs(a.getOrDefault("request-timeout", "3s")));
        if (batch < 1 || batch > 32 || concurrency < 1 || concurrency > 64) {
            throw new IllegalArgumentException("--batch must be 1..32 and --concurrency 1..64");
        }

        ClientServiceProvider provider = ClientServiceProvider.loadService();
        ClientConfiguration cfg = ClientConfiguration.newBuilder()
            .setEndpoints(endpoint)
            .enableSsl(false)
            .setRequestTimeout(requestTimeout)
            .build();
        Producer producer = provider.newProducerBuilder()
            .setClientConfiguration(cfg)
            .setTopics(target)
            .setMaxAttempts(maxAttempts)
            .build();
        SimpleConsumer consumer = provider.newSimpleConsumerBuilder()
            .setClientConfiguration(cfg)
            .setConsumerGroup(group)
            .setAwaitDuration(await)
            .setSubscriptionExpressions(Collections.singletonMap(source,
                new FilterExpression("*", FilterExpressionType.TAG)))
            .build();

        AtomicLong relayed = new AtomicLong();
        AtomicLong sendFailed = new AtomicLong();
        AtomicLong ackFailed = new AtomicLong();
        AtomicLong receiveErrors = new AtomicLong();
        AtomicInteger inflight = new AtomicInteger();
        AtomicLong firstNanos = new AtomicLong();
        AtomicLong lastMsgNanos = new AtomicLong(System.nanoTime());
        AtomicLong lastDoneNanos = new AtomicLong();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        AtomicLong firstEpochMs = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();

        Thread[] workers = new Thread[concurrency];
        for (int w = 0; w < concurrency; w++) {
            workers[w] = new Thread(() -> {
                while (!stop.get()) {
                    List<MessageView> got;
                    try {
                        got = consumer.receive(batch, invisible);
                    } catch (Throwable t) {
                        if (stop.get()) {
                            break;
                        }
                        receiveErrors.incrementAndGet();
                        firstError.compareAndSet(null, t);
                        sleepQuietly(100);
                        continue;
                    }
                    if (got.isEmpty()) {
                        continue;
                    }
                    inflight.addAndGet(got.size());
                    long now = System.nanoTime();
                    lastMsgNanos.set(now);
                    if (firstNanos.compareAndSet(0, now)) {
                        firstEpochMs.set(System.currentTimeMillis());
                    }
                    CountDownLatch done = new CountDownLatch(got.size());
                    for (MessageView mv : got) {
                        ByteBuffer bb = mv.getBody().duplicate();
                        byte[] body = new byte[bb.remaining()];
                        bb.get(body);
                        Message out = provider.newMessageBuilder().setTopic(target).setBody(body).build();
                        producer.sendAsync(out).whenComplete((receipt, st) -> {
                            if (st != null) {
                                sendFailed.incrementAndGet();
                                firstError.compareAndSet(null, st);
                                finish(inflight, lastDoneNanos, done);
                                return;
                            }
                            consumer.ackAsync(mv).whenComplete((v, at) -> {
                                if (at != null) {
                                    ackFailed.incrementAndGet();
                                    firstError.compareAndSet(null, at);
                                } else {
                                    relayed.incrementAndGet();
                                }
                                finish(inflight, lastDoneNanos, done);
                            });
                        });
                    }
                    try {
                        done.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }, "relay-" + w);
            workers[w].setDaemon(true);
            workers[w].start();
        }

        // End once nothing arrived for idleMs and nothing is in flight.
        for (;;) {
            sleepQuietly(20);
            if (inflight.get() == 0
                && System.nanoTime() - lastMsgNanos.get() >= TimeUnit.MILLISECONDS.toNanos(idleMs)) {
                break;
            }
        }
        stop.set(true);
        long closeStart = System.nanoTime();
        closeQuietly(consumer);
        closeQuietly(producer);
        double closeSecs = (System.nanoTime() - closeStart) / 1e9;

        long jvmStartMs = ManagementFactory.getRuntimeMXBean().getStartTime();
        double startToFirst = firstEpochMs.get() == 0 ? -1 : (firstEpochMs.get() - jvmStartMs) / 1e3;
        double firstToLast = firstNanos.get() == 0 ? 0 : (lastDoneNanos.get() - firstNanos.get()) / 1e9;
        if (firstError.get() != null) {
            System.err.println("rmq-relay: first error: " + firstError.get());
        }
        System.out.printf("relayed=%d send_failed=%d ack_failed=%d receive_errors=%d jvm_start_to_first_s=%.3f"
            + " first_to_last_s=%.3f close_s=%.3f%n", relayed.get(), sendFailed.get(), ackFailed.get(),
            receiveErrors.get(), startToFirst, firstToLast, closeSecs);
        return sendFailed.get() == 0 && ackFailed.get() == 0 ? 0 : 1;
    }

    static void finish(AtomicInteger inflight, AtomicLong lastDone, CountDownLatch done) {
        lastDone.set(System.nanoTime());
        inflight.decrementAndGet();
        done.countDown();
    }

    /** Closes (NotifyClientTermination) but gives up after 5 s: the JVM is halted next. */
    static void closeQuietly(AutoCloseable c) {
        Thread t = new Thread(() -> {
            try {
                c.close();
            } catch (Exception e) {
                System.err.println("rmq-relay: close: " + e);
            }
        });
        t.setDaemon(true);
        t.start();
        try {
            t.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
