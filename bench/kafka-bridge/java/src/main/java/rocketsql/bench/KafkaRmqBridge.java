// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The rocketsql authors
package rocketsql.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.MessageBuilder;
import org.apache.rocketmq.client.apis.producer.Producer;

/**
 * kafka-rmq-bridge: the reference Kafka -> RocketMQ bridge of bench/kafka-bridge, on the
 * official clients of both sides.
 *
 * <p>The loop rocketsql runs for {@code INSERT INTO rmq_table SELECT ... FROM kafka_table}
 * with at-least-once delivery: one {@code KafkaConsumer} is assigned every partition of the
 * Kafka topic (offsets committed to {@code --group}, none at the start: from the beginning)
 * and reads up to the end each partition had when the bridge started (as rocketsql's
 * {@code scan.bounded.mode = latest-offset}); each record's value is sent as the body of one
 * RocketMQ message, its key (when it has one) as the message key, by one {@code Producer}
 * asynchronously, at most {@code --max-inflight} sends at once. A polled batch's offsets are
 * committed (asynchronously) once every send of it and of the batches before it succeeded; a
 * failed send is counted, and its batch is never committed. At the end: a synchronous commit.
 *
 * <p>Prints one line on stdout: {@code relayed= send_failed= jvm_start_to_first_s=
 * first_to_last_s=}; exit 0 when nothing failed.
 */
public final class KafkaRmqBridge {
    private KafkaRmqBridge() {
    }

    /** One poll's records: the offsets to commit once all of its sends are done. */
    static final class Batch {
        final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        final AtomicInteger pending = new AtomicInteger();
        volatile boolean failed;
    }

    static void usage() {
        System.out.println(String.join("\n",
            "usage: kafka-rmq-bridge --bootstrap HOST:PORT --topic T --group G --endpoint HOST:PORT",
            "                        --target-topic R [--max-inflight 512] [--max-poll-records 500]",
            "Relays every record of the Kafka topic T, up to the partitions' ends at the start,",
            "to the RocketMQ topic R (value = body, key = message key), then exits."));
    }

    static Map<String, String> parse(String[] argv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("bad argument: " + a);
            }
            m.put(a.substring(2), argv[++i]);
        }
        for (String k : m.keySet()) {
            if (!List.of("bootstrap", "topic", "group", "endpoint", "target-topic", "max-inflight",
                "max-poll-records").contains(k)) {
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
            System.err.println("kafka-rmq-bridge: " + e.getMessage());
            rc = 2;
        } catch (Throwable t) {
            System.err.println("kafka-rmq-bridge: failed: " + t);
            t.printStackTrace();
            rc = 1;
        }
        System.out.flush();
        System.err.flush();
        // the RocketMQ client's non-daemon threads would keep the JVM alive for a while
        Runtime.getRuntime().halt(rc);
    }

    static int run(Map<String, String> a) throws Exception {
        String topic = req(a, "topic");
        String target = req(a, "target-topic");
        int maxInflight = Integer.parseInt(a.getOrDefault("max-inflight", "512"));
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, req(a, "bootstrap"));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, req(a, "group"));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, a.getOrDefault("max-poll-records", "500"));
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());

        ClientServiceProvider provider = ClientServiceProvider.loadService();
        ClientConfiguration cfg = ClientConfiguration.newBuilder()
            .setEndpoints(req(a, "endpoint")).enableSsl(false).build();
        Producer producer = provider.newProducerBuilder().setClientConfiguration(cfg)
            .setTopics(target).build();

        AtomicLong relayed = new AtomicLong();
        AtomicLong sendFailed = new AtomicLong();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        Semaphore inflight = new Semaphore(maxInflight);
        long firstNanos = 0;
        long firstEpochMs = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            ArrayDeque<Batch> batches = new ArrayDeque<>();
            for (;;) {
                boolean done = true;
                for (TopicPartition tp : parts) {
                    if (consumer.position(tp) < end.get(tp)) {
                        done = false;
                        break;
                    }
                }
                if (done) {
                    break;
                }
                ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(100));
                if (!recs.isEmpty()) {
                    Batch b = new Batch();
                    b.pending.set(recs.count());
                    batches.add(b);
                    if (firstNanos == 0) {
                        firstNanos = System.nanoTime();
                        firstEpochMs = System.currentTimeMillis();
                    }
                    for (ConsumerRecord<byte[], byte[]> r : recs) {
                        b.next.put(new TopicPartition(r.topic(), r.partition()),
                            new OffsetAndMetadata(r.offset() + 1));
                        MessageBuilder mb = provider.newMessageBuilder().setTopic(target)
                            .setBody(r.value() == null ? new byte[0] : r.value());
                        if (r.key() != null) {
                            mb.setKeys(new String(r.key(), StandardCharsets.UTF_8));
                        }
                        inflight.acquire();
                        producer.sendAsync(mb.build()).whenComplete((receipt, st) -> {
                            if (st != null) {
                                sendFailed.incrementAndGet();
                                firstError.compareAndSet(null, st);
                                b.failed = true;
                            } else {
                                relayed.incrementAndGet();
                            }
                            b.pending.decrementAndGet();
                            inflight.release();
                        });
                    }
                }
                commitDone(consumer, batches, false);
            }
            // wait for the last sends, then commit what they completed
            inflight.acquire(maxInflight);
            inflight.release(maxInflight);
            commitDone(consumer, batches, true);
        }
        long lastNanos = System.nanoTime();
        producer.close();
        long jvmStartMs = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        if (firstError.get() != null) {
            System.err.println("kafka-rmq-bridge: first error: " + firstError.get());
        }
        System.out.printf("relayed=%d send_failed=%d jvm_start_to_first_s=%.3f first_to_last_s=%.3f%n",
            relayed.get(), sendFailed.get(), firstEpochMs == 0 ? -1 : (firstEpochMs - jvmStartMs) / 1e3,
            firstNanos == 0 ? 0 : (lastNanos - firstNanos) / 1e9);
        return sendFailed.get() == 0 ? 0 : 1;
    }

    /** Commits the offsets of the leading batches whose sends all succeeded (in order). */
    static void commitDone(KafkaConsumer<byte[], byte[]> consumer, ArrayDeque<Batch> batches, boolean sync) {
        Map<TopicPartition, OffsetAndMetadata> upto = new HashMap<>();
        while (!batches.isEmpty() && batches.peek().pending.get() == 0 && !batches.peek().failed) {
            upto.putAll(batches.poll().next);
        }
        if (upto.isEmpty()) {
            return;
        }
        if (sync) {
            consumer.commitSync(upto);
        } else {
            consumer.commitAsync(upto, null);
        }
    }
}
