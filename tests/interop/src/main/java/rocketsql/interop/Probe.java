package rocketsql.interop;

import apache.rocketmq.v2.AckMessageEntry;
import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.AckMessageResponse;
import apache.rocketmq.v2.Address;
import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.ChangeInvisibleDurationRequest;
import apache.rocketmq.v2.ChangeInvisibleDurationResponse;
import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Encoding;
import apache.rocketmq.v2.Endpoints;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.HeartbeatResponse;
import apache.rocketmq.v2.Language;
import apache.rocketmq.v2.LiteSubscriptionAction;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.NotifyClientTerminationRequest;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.ReceiveMessageResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.SyncLiteSubscriptionRequest;
import apache.rocketmq.v2.SyncLiteSubscriptionResponse;
import apache.rocketmq.v2.SystemProperties;
import apache.rocketmq.v2.TelemetryCommand;
import apache.rocketmq.v2.UA;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.shaded.com.google.protobuf.ByteString;
import org.apache.rocketmq.shaded.com.google.protobuf.MessageOrBuilder;
import org.apache.rocketmq.shaded.com.google.protobuf.Timestamp;
import org.apache.rocketmq.shaded.com.google.protobuf.UnknownFieldSet;
import org.apache.rocketmq.shaded.com.google.protobuf.util.Durations;
import org.apache.rocketmq.shaded.com.google.protobuf.util.JsonFormat;
import org.apache.rocketmq.shaded.grpc.netty.NettyChannelBuilder;
import org.apache.rocketmq.shaded.io.grpc.ManagedChannel;
import org.apache.rocketmq.shaded.io.grpc.Metadata;
import org.apache.rocketmq.shaded.io.grpc.StatusRuntimeException;
import org.apache.rocketmq.shaded.io.grpc.stub.MetadataUtils;
import org.apache.rocketmq.shaded.io.grpc.stub.StreamObserver;

/**
 * Raw gRPC probe of a RocketMQ 5.x proxy: sends hand-built requests (client
 * types, headers and limits the official client never sends) and prints one
 * "fact" line per observation. Used to settle docs/ROCKETMQ-NOTES.md.
 */
final class Probe {
    private static final AtomicLong SEQ = new AtomicLong();
    private final String host;
    private final int port;
    private final ManagedChannel channel;
    private final boolean verbose;
    private int failures;

    private Probe(String endpoint, boolean verbose) {
        int colon = endpoint.lastIndexOf(':');
        this.host = endpoint.substring(0, colon);
        this.port = Integer.parseInt(endpoint.substring(colon + 1));
        // like the official client: no inbound size limit (a 4 MiB body plus
        // its properties exceeds grpc's 4 MiB default)
        this.channel = NettyChannelBuilder.forAddress(host, port).usePlaintext()
            .maxInboundMessageSize(Integer.MAX_VALUE).build();
        this.verbose = verbose;
    }

    static int run(RmqInterop.Args a) throws Exception {
        a.allow("endpoint", "normal-topic", "fifo-topic", "lite-topic", "group", "lite-group", "fifo-group",
            "verbose");
        Probe p = new Probe(a.req("endpoint"), a.flag("verbose"));
        try {
            p.all(a.req("normal-topic"), a.req("fifo-topic"), a.req("lite-topic"), a.req("group"),
                a.req("lite-group"), a.str("fifo-group", null));
        } finally {
            p.channel.shutdownNow();
        }
        System.out.println("probe_errors=" + p.failures);
        return p.failures == 0 ? 0 : 1;
    }

    // ---------------------------------------------------------------- plumbing
    /** One logical client: an id plus the headers it sends. */
    class Client {
        final String clientId;
        final String language;
        final String version;
        StreamObserver<TelemetryCommand> telemetry;

        Client(String language) {
            this(language, "5.2.0");
        }

        Client(String language, String version) {
            String h;
            try {
                h = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                h = "localhost";
            }
            this.clientId = h + "@" + ProcessHandle.current().pid() + "@probe" + SEQ.incrementAndGet() + "@"
                + Long.toString(System.nanoTime(), 36);
            this.language = language;
            this.version = version;
        }

        Metadata headers() {
            Metadata md = new Metadata();
            if (language != null) {
                md.put(key("x-mq-language"), language);
            }
            md.put(key("x-mq-protocol"), "v2");
            if (version != null) {
                md.put(key("x-mq-client-version"), version);
            }
            if (clientId != null) {
                md.put(key("x-mq-client-id"), clientId);
            }
            md.put(key("x-mq-request-id"), UUID.randomUUID().toString());
            md.put(key("x-mq-namespace"), "");
            return md;
        }

        MessagingServiceGrpc.MessagingServiceBlockingStub stub(long deadlineMs) {
            return MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers()))
                .withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS);
        }

        /** Opens Telemetry, sends settings, waits for the first answer. */
        String settings(Settings s) throws Exception {
            CompletableFuture<String> first = new CompletableFuture<>();
            StreamObserver<TelemetryCommand> resp = new StreamObserver<>() {
                @Override
                public void onNext(TelemetryCommand c) {
                    first.complete("status=" + c.getStatus().getCode() + " settings=" + json(c.getSettings()));
                }

                @Override
                public void onError(Throwable t) {
                    first.complete("stream-error=" + grpcError(t));
                }

                @Override
                public void onCompleted() {
                    first.complete("stream-completed");
                }
            };
            telemetry = MessagingServiceGrpc.newStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers()))
                .telemetry(resp);
            telemetry.onNext(TelemetryCommand.newBuilder().setSettings(s).build());
            try {
                return first.get(8, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                return "no-answer-in-8s";
            }
        }

        void close(String group) {
            try {
                NotifyClientTerminationRequest.Builder b = NotifyClientTerminationRequest.newBuilder();
                if (group != null) {
                    b.setGroup(res(group));
                }
                stub(3000).notifyClientTermination(b.build());
            } catch (RuntimeException ignored) {
                // best effort
            }
            if (telemetry != null) {
                try {
                    telemetry.onCompleted();
                } catch (RuntimeException ignored) {
                    // already closed
                }
            }
        }
    }

    static Metadata.Key<String> key(String k) {
        return Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER);
    }

    static Resource res(String name) {
        return Resource.newBuilder().setName(name).build();
    }

    Endpoints endpoints() {
        return Endpoints.newBuilder().setScheme(AddressScheme.IPv4)
            .addAddresses(Address.newBuilder().setHost(host).setPort(port)).build();
    }

    static String json(MessageOrBuilder m) {
        try {
            return JsonFormat.printer().omittingInsignificantWhitespace().print(m);
        } catch (Exception e) {
            return String.valueOf(m);
        }
    }

    static String grpcError(Throwable t) {
        if (t instanceof StatusRuntimeException) {
            StatusRuntimeException s = (StatusRuntimeException) t;
            return "grpc " + s.getStatus().getCode() + " (" + s.getStatus().getDescription() + ")";
        }
        return t.toString();
    }

    void fact(String name, String value) {
        System.out.println("fact." + name + ": " + value);
    }

    /** Runs one check; an unexpected exception is reported, not fatal. */
    void check(String name, ThrowingSupplier s) {
        try {
            fact(name, s.get());
        } catch (StatusRuntimeException e) {
            fact(name, grpcError(e));
        } catch (Throwable t) {
            failures++;
            fact(name, "PROBE-ERROR " + t);
            if (verbose) {
                t.printStackTrace();
            }
        }
    }

    interface ThrowingSupplier {
        String get() throws Exception;
    }

    Settings.Builder baseSettings(ClientType type) {
        return Settings.newBuilder()
            .setClientType(type)
            .setAccessPoint(endpoints())
            .setRequestTimeout(Durations.fromSeconds(3))
            .setUserAgent(UA.newBuilder().setLanguage(Language.JAVA).setVersion("5.2.0").setPlatform("linux")
                .setHostname("probe"));
    }

    Settings producerSettings(String topic) {
        return baseSettings(ClientType.PRODUCER)
            .setPublishing(Publishing.newBuilder().addTopics(res(topic))).build();
    }

    Settings consumerSettings(ClientType type, String group, String topic) {
        return baseSettings(type)
            .setSubscription(Subscription.newBuilder().setGroup(res(group))
                .addSubscriptions(SubscriptionEntry.newBuilder().setTopic(res(topic))
                    .setExpression(FilterExpression.newBuilder().setType(FilterType.TAG).setExpression("*")))
                .setLongPollingTimeout(Durations.fromSeconds(20)))
            .build();
    }

    static String status(apache.rocketmq.v2.Status s) {
        return s.getCode() + (s.getMessage().isEmpty() ? "" : " (" + s.getMessage() + ")");
    }

    String heartbeat(Client c, ClientType type, String group) {
        HeartbeatRequest.Builder b = HeartbeatRequest.newBuilder().setClientType(type);
        if (group != null) {
            b.setGroup(res(group));
        }
        HeartbeatResponse r = c.stub(3000).heartbeat(b.build());
        return status(r.getStatus());
    }

    QueryRouteResponse route(Client c, String topic) {
        return c.stub(3000).queryRoute(QueryRouteRequest.newBuilder().setTopic(res(topic))
            .setEndpoints(endpoints()).build());
    }

    String describeRoute(QueryRouteResponse r) {
        TreeSet<String> types = new TreeSet<>();
        TreeSet<String> perms = new TreeSet<>();
        String ep = "";
        for (MessageQueue q : r.getMessageQueuesList()) {
            q.getAcceptMessageTypesList().forEach(t -> types.add(t.name()));
            perms.add(q.getPermission().name());
            ep = json(q.getBroker());
        }
        return "status=" + status(r.getStatus()) + " queues=" + r.getMessageQueuesCount() + " accept=" + types
            + " permissions=" + perms + " broker=" + ep;
    }

    Message.Builder message(String topic, byte[] body, MessageType type) {
        SystemProperties.Builder sp = SystemProperties.newBuilder()
            .setMessageId(UUID.randomUUID().toString().replace("-", "").toUpperCase())
            .setBodyEncoding(Encoding.IDENTITY)
            .setMessageType(type)
            .setBornTimestamp(Timestamp.newBuilder().setSeconds(System.currentTimeMillis() / 1000))
            .setBornHost("127.0.0.1")
            .addKeys("probe");
        return Message.newBuilder().setTopic(res(topic)).setSystemProperties(sp).setBody(ByteString.copyFrom(body));
    }

    String send(Client c, Message m) {
        SendMessageResponse r = c.stub(10000).sendMessage(SendMessageRequest.newBuilder().addMessages(m).build());
        StringBuilder sb = new StringBuilder("status=" + status(r.getStatus()));
        r.getEntriesList().forEach(e -> sb.append(" entry=").append(status(e.getStatus())));
        return sb.toString();
    }

    /** Result of one ReceiveMessage call. */
    static final class Recv {
        final List<String> elements = new ArrayList<>();
        final List<apache.rocketmq.v2.Message> messages = new ArrayList<>();
        long millis;
        String error;

        @Override
        public String toString() {
            return (error != null ? "error=" + error + " " : "") + "elements=" + elements + " messages="
                + messages.size() + " elapsed_ms=" + millis;
        }
    }

    Recv receive(Client c, String group, MessageQueue mq, int batch, Long invisibleMs, Long pollMs, boolean autoRenew,
                 long deadlineMs) {
        ReceiveMessageRequest.Builder b = ReceiveMessageRequest.newBuilder()
            .setGroup(res(group))
            .setMessageQueue(mq)
            .setFilterExpression(FilterExpression.newBuilder().setType(FilterType.TAG).setExpression("*"))
            .setBatchSize(batch)
            .setAutoRenew(autoRenew);
        if (invisibleMs != null) {
            b.setInvisibleDuration(Durations.fromMillis(invisibleMs));
        }
        if (pollMs != null) {
            b.setLongPollingTimeout(Durations.fromMillis(pollMs));
        }
        Recv out = new Recv();
        long t0 = System.nanoTime();
        try {
            Iterator<ReceiveMessageResponse> it = c.stub(deadlineMs).receiveMessage(b.build());
            while (it.hasNext()) {
                ReceiveMessageResponse r = it.next();
                switch (r.getContentCase()) {
                    case STATUS:
                        out.elements.add("status:" + status(r.getStatus()));
                        break;
                    case MESSAGE:
                        out.messages.add(r.getMessage());
                        out.elements.add("message");
                        break;
                    case DELIVERY_TIMESTAMP:
                        out.elements.add("delivery_timestamp");
                        break;
                    default:
                        out.elements.add(r.getContentCase().name());
                }
            }
        } catch (StatusRuntimeException e) {
            out.error = grpcError(e);
        }
        out.millis = (System.nanoTime() - t0) / 1_000_000;
        // compress runs of "message"
        List<String> compact = new ArrayList<>();
        int run = 0;
        for (String e : out.elements) {
            if (e.equals("message")) {
                run++;
                continue;
            }
            if (run > 0) {
                compact.add("message x" + run);
                run = 0;
            }
            compact.add(e);
        }
        if (run > 0) {
            compact.add("message x" + run);
        }
        out.elements.clear();
        out.elements.addAll(compact);
        return out;
    }

    String ack(Client c, String group, String topic, apache.rocketmq.v2.Message m, String liteTopic) {
        AckMessageEntry.Builder e = AckMessageEntry.newBuilder()
            .setMessageId(m.getSystemProperties().getMessageId())
            .setReceiptHandle(m.getSystemProperties().getReceiptHandle());
        if (liteTopic != null) {
            e.setLiteTopic(liteTopic);
        }
        AckMessageResponse r = c.stub(3000).ackMessage(AckMessageRequest.newBuilder().setGroup(res(group))
            .setTopic(res(topic)).addEntries(e).build());
        StringBuilder sb = new StringBuilder("status=" + status(r.getStatus()));
        r.getEntriesList().forEach(x -> sb.append(" entry=").append(status(x.getStatus())));
        return sb.toString();
    }

    String changeInvisible(Client c, String group, String topic, String messageId, String handle, long ms,
                           String liteTopic) {
        ChangeInvisibleDurationRequest.Builder b = ChangeInvisibleDurationRequest.newBuilder()
            .setGroup(res(group)).setTopic(res(topic)).setReceiptHandle(handle)
            .setInvisibleDuration(Durations.fromMillis(ms)).setMessageId(messageId);
        if (liteTopic != null) {
            // field 6 (lite_topic) is newer than the proto inside client 5.2.0: send it as an unknown field
            b.setUnknownFields(UnknownFieldSet.newBuilder().addField(6, UnknownFieldSet.Field.newBuilder()
                .addLengthDelimited(ByteString.copyFromUtf8(liteTopic)).build()).build());
        }
        ChangeInvisibleDurationResponse r = c.stub(3000).changeInvisibleDuration(b.build());
        return "status=" + status(r.getStatus()) + " new_handle=" + !r.getReceiptHandle().isEmpty();
    }

    String syncLite(Client c, LiteSubscriptionAction action, String topic, String group, String... lite) {
        SyncLiteSubscriptionResponse r = c.stub(5000).syncLiteSubscription(SyncLiteSubscriptionRequest.newBuilder()
            .setAction(action).setTopic(res(topic)).setGroup(res(group)).addAllLiteTopicSet(List.of(lite)).build());
        return status(r.getStatus());
    }

    // ---------------------------------------------------------------- the checks
    void all(String normal, String fifo, String lite, String group, String liteGroup, String fifoGroup)
        throws Exception {
        String missingTopic = "rsql_no_such_topic_" + ProcessHandle.current().pid();
        Client r = new Client("JAVA");

        // --- routes
        check("route.normal", () -> describeRoute(route(r, normal)));
        check("route.fifo", () -> describeRoute(route(r, fifo)));
        check("route.lite", () -> describeRoute(route(r, lite)));
        check("route.missing_topic", () -> describeRoute(route(r, missingTopic)));
        check("route.no_headers", () -> {
            MessagingServiceGrpc.MessagingServiceBlockingStub s = MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(new Metadata()))
                .withDeadlineAfter(3, TimeUnit.SECONDS);
            return describeRoute(s.queryRoute(QueryRouteRequest.newBuilder().setTopic(res(normal))
                .setEndpoints(endpoints()).build()));
        });
        MessageQueue normalQ = route(r, normal).getMessageQueues(0);
        MessageQueue liteQ = route(r, lite).getMessageQueues(0);

        // --- languages accepted in x-mq-language (producer telemetry + heartbeat)
        for (String lang : new String[] {"JAVA", "CPP", "GO", "GOLANG", "PYTHON", "RUST", "OTHER", "C", "cpp",
            ""}) {
            check("language." + (lang.isEmpty() ? "(empty)" : lang), () -> {
                Client c = new Client(lang);
                String t = c.settings(producerSettings(normal));
                String h = heartbeat(c, ClientType.PRODUCER, null);
                c.close(null);
                return "telemetry: " + shortSettings(t) + " | heartbeat: " + h;
            });
        }
        check("language.(absent)", () -> {
            Client c = new Client(null);
            String t = c.settings(producerSettings(normal));
            String h = heartbeat(c, ClientType.PRODUCER, null);
            c.close(null);
            return "telemetry: " + shortSettings(t) + " | heartbeat: " + h;
        });
        check("client_id.absent.heartbeat", () -> {
            Client anon = new Client("JAVA") {
                @Override
                Metadata headers() {
                    Metadata md = super.headers();
                    md.removeAll(key("x-mq-client-id"));
                    return md;
                }
            };
            return heartbeat(anon, ClientType.PRODUCER, null);
        });

        // --- producer settings and send errors
        Client prod = new Client("CPP");
        check("producer.settings", () -> prod.settings(producerSettings(normal)));
        check("producer.heartbeat", () -> heartbeat(prod, ClientType.PRODUCER, null));
        check("send.normal_ok", () -> send(prod, message(normal, "{\"id\":-1}".getBytes(), MessageType.NORMAL)
            .build()));
        check("send.missing_topic", () -> send(prod, message(missingTopic, "x".getBytes(), MessageType.NORMAL)
            .build()));
        check("send.body_4MiB", () -> send(prod, message(normal, new byte[4 * 1024 * 1024], MessageType.NORMAL)
            .build()));
        check("send.body_4MiB_plus_1", () -> send(prod, message(normal, new byte[4 * 1024 * 1024 + 1],
            MessageType.NORMAL).build()));
        check("send.body_empty", () -> send(prod, message(normal, new byte[0], MessageType.NORMAL).build()));
        check("send.normal_type_to_fifo_topic", () -> send(prod, message(fifo, "x".getBytes(), MessageType.NORMAL)
            .build()));
        check("send.fifo_without_group", () -> send(prod, message(fifo, "x".getBytes(), MessageType.FIFO)
            .build()));
        check("send.normal_type_to_lite_topic", () -> send(prod, message(lite, "x".getBytes(), MessageType.NORMAL)
            .build()));
        check("send.lite_ok", () -> {
            Message.Builder m = message(lite, "{\"id\":-2}".getBytes(), MessageType.LITE);
            m.getSystemPropertiesBuilder().setLiteTopic("probe-lt-1");
            return send(prod, m.build());
        });
        check("send.lite_topic_65_chars", () -> {
            Message.Builder m = message(lite, "x".getBytes(), MessageType.LITE);
            m.getSystemPropertiesBuilder().setLiteTopic("a".repeat(65));
            return send(prod, m.build());
        });
        check("send.lite_topic_64_chars", () -> {
            Message.Builder m = message(lite, "x".getBytes(), MessageType.LITE);
            m.getSystemPropertiesBuilder().setLiteTopic("b".repeat(64));
            return send(prod, m.build());
        });
        check("send.lite_topic_bad_chars", () -> {
            Message.Builder m = message(lite, "x".getBytes(), MessageType.LITE);
            m.getSystemPropertiesBuilder().setLiteTopic("a/b.c");
            return send(prod, m.build());
        });
        check("send.lite_type_without_lite_topic", () -> send(prod, message(lite, "x".getBytes(), MessageType.LITE)
            .build()));
        check("send.without_settings", () -> {
            Client fresh = new Client("CPP");
            return send(fresh, message(normal, "{\"id\":-3}".getBytes(), MessageType.NORMAL).build());
        });
        prod.close(null);

        // --- simple consumer on a normal group
        Client sc = new Client("CPP");
        check("simple.settings", () -> sc.settings(consumerSettings(ClientType.SIMPLE_CONSUMER, group, normal)));
        check("simple.heartbeat", () -> heartbeat(sc, ClientType.SIMPLE_CONSUMER, group));
        // drain what is there (the send.* checks above put a few messages in)
        check("receive.first_poll", () -> {
            Recv x = receive(sc, group, normalQ, 32, 30_000L, 5_000L, false, 10_000);
            for (apache.rocketmq.v2.Message m : x.messages) {
                ack(sc, group, normal, m, null);
            }
            return x + " delivery_attempt=" + (x.messages.isEmpty() ? "-"
                : x.messages.get(0).getSystemProperties().getDeliveryAttempt());
        });
        check("receive.empty_poll_5s", () -> receive(sc, group, normalQ, 32, 30_000L, 5_000L, false, 10_000)
            .toString());
        check("receive.long_poll_1s", () -> receive(sc, group, normalQ, 32, 30_000L, 1_000L, false, 10_000)
            .toString());
        check("receive.long_poll_absent_deadline_8s", () -> receive(sc, group, normalQ, 32, 30_000L, null, false,
            8_000).toString());
        check("receive.long_poll_30s_deadline_40s", () -> receive(sc, group, normalQ, 32, 30_000L, 30_000L, false,
            40_000).toString());
        check("receive.long_poll_10s_deadline_3s", () -> receive(sc, group, normalQ, 32, 30_000L, 10_000L, false,
            3_000).toString());
        check("receive.long_poll_10s_deadline_7s", () -> receive(sc, group, normalQ, 32, 30_000L, 10_000L, false,
            7_000).toString());
        check("receive.invisible_9s", () -> receive(sc, group, normalQ, 32, 9_000L, 5_000L, false, 10_000)
            .toString());
        check("receive.invisible_10s", () -> receive(sc, group, normalQ, 32, 10_000L, 5_000L, false, 10_000)
            .toString());
        check("receive.invisible_absent", () -> receive(sc, group, normalQ, 32, null, 5_000L, false, 10_000)
            .toString());
        check("receive.invisible_12h", () -> receive(sc, group, normalQ, 32, 12 * 3600_000L, 5_000L, false, 10_000)
            .toString());
        check("receive.invisible_12h_plus_1s", () -> receive(sc, group, normalQ, 32, 12 * 3600_000L + 1000, 5_000L,
            false, 10_000).toString());
        check("receive.auto_renew_no_invisible", () -> receive(sc, group, normalQ, 32, null, 5_000L, true, 10_000)
            .toString());
        check("receive.batch_0", () -> receive(sc, group, normalQ, 0, 30_000L, 5_000L, false, 10_000).toString());
        check("receive.batch_1000", () -> receive(sc, group, normalQ, 1000, 30_000L, 5_000L, false, 10_000)
            .toString());
        check("receive.without_settings", () -> {
            Client fresh = new Client("CPP");
            return receive(fresh, group, normalQ, 32, 30_000L, 5_000L, false, 10_000).toString();
        });
        check("ack.bogus_handle", () -> {
            apache.rocketmq.v2.Message m = apache.rocketmq.v2.Message.newBuilder().setSystemProperties(
                SystemProperties.newBuilder().setMessageId("0123456789ABCDEF").setReceiptHandle("bogus")).build();
            return ack(sc, group, normal, m, null);
        });
        // a real message to exercise ack / change-invisible limits
        Client p2 = new Client("CPP");
        p2.settings(producerSettings(normal));
        send(p2, message(normal, "{\"id\":-4}".getBytes(), MessageType.NORMAL).build());
        send(p2, message(normal, "{\"id\":-5}".getBytes(), MessageType.NORMAL).build());
        p2.close(null);
        check("change_invisible.limits", () -> {
            Recv x = receive(sc, group, normalQ, 2, 30_000L, 5_000L, false, 10_000);
            if (x.messages.isEmpty()) {
                return "no message received: " + x;
            }
            apache.rocketmq.v2.Message m = x.messages.get(0);
            String id = m.getSystemProperties().getMessageId();
            String h = m.getSystemProperties().getReceiptHandle();
            StringBuilder sb = new StringBuilder();
            sb.append("12h+1s: ").append(changeInvisible(sc, group, normal, id, h, 12 * 3600_000L + 1000, null));
            sb.append(" | 0s: ").append(changeInvisible(sc, group, normal, id, h, 0, null));
            sb.append(" | old_handle_after_change: ").append(ack(sc, group, normal, m, null));
            for (apache.rocketmq.v2.Message o : x.messages.subList(1, x.messages.size())) {
                sb.append(" | ack_other: ").append(ack(sc, group, normal, o, null));
            }
            sb.append(" | redelivery: ");
            Recv y = receive(sc, group, normalQ, 32, 30_000L, 5_000L, false, 10_000);
            for (apache.rocketmq.v2.Message o : y.messages) {
                sb.append("attempt=").append(o.getSystemProperties().getDeliveryAttempt()).append(' ');
                sb.append(ack(sc, group, normal, o, null)).append(' ');
            }
            return sb.toString();
        });
        check("ack.expired_handle", () -> {
            Client p4 = new Client("CPP");
            send(p4, message(normal, "{\"id\":-6}".getBytes(), MessageType.NORMAL).build());
            Recv x = receive(sc, group, normalQ, 1, 10_000L, 5_000L, false, 10_000);
            if (x.messages.isEmpty()) {
                return "no message received: " + x;
            }
            Thread.sleep(11_000);
            apache.rocketmq.v2.Message m = x.messages.get(0);
            StringBuilder sb = new StringBuilder("ack 11s after receive with invisible 10s: ");
            sb.append(ack(sc, group, normal, m, null));
            Recv y = receive(sc, group, normalQ, 32, 30_000L, 5_000L, false, 10_000);
            sb.append(" | then: ").append(y);
            for (apache.rocketmq.v2.Message o : y.messages) {
                sb.append(" attempt=").append(o.getSystemProperties().getDeliveryAttempt()).append(' ')
                    .append(ack(sc, group, normal, o, null));
            }
            return sb.toString();
        });
        check("ack.old_handle_after_change_invisible", () -> {
            Client p4 = new Client("CPP");
            send(p4, message(normal, "{\"id\":-7}".getBytes(), MessageType.NORMAL).build());
            Recv x = receive(sc, group, normalQ, 1, 30_000L, 5_000L, false, 10_000);
            if (x.messages.isEmpty()) {
                return "no message received: " + x;
            }
            apache.rocketmq.v2.Message m = x.messages.get(0);
            SystemProperties spx = m.getSystemProperties();
            StringBuilder sb = new StringBuilder("change to 10s: ");
            sb.append(changeInvisible(sc, group, normal, spx.getMessageId(), spx.getReceiptHandle(), 10_000, null));
            sb.append(" | ack with the old handle: ").append(ack(sc, group, normal, m, null));
            Thread.sleep(10_500);
            Recv y = receive(sc, group, normalQ, 32, 30_000L, 5_000L, false, 10_000);
            sb.append(" | poll after 10.5s: ").append(y);
            for (apache.rocketmq.v2.Message o : y.messages) {
                sb.append(" attempt=").append(o.getSystemProperties().getDeliveryAttempt()).append(' ')
                    .append(ack(sc, group, normal, o, null));
            }
            return sb.toString();
        });
        check("change_invisible.bogus_handle", () -> changeInvisible(sc, group, normal, "0123456789ABCDEF", "bogus",
            30_000, null));
        sc.close(group);

        // --- FIFO group settings
        if (fifoGroup != null) {
            Client fc = new Client("CPP");
            check("fifo.settings", () -> fc.settings(consumerSettings(ClientType.SIMPLE_CONSUMER, fifoGroup, fifo)));
            fc.close(fifoGroup);
        }

        // --- lite: which client types does the proxy take?
        Client ls = new Client("CPP");
        check("lite.LITE_SIMPLE_CONSUMER.settings", () -> ls.settings(consumerSettings(
            ClientType.LITE_SIMPLE_CONSUMER, liteGroup, lite)));
        check("lite.LITE_SIMPLE_CONSUMER.heartbeat", () -> heartbeat(ls, ClientType.LITE_SIMPLE_CONSUMER,
            liteGroup));
        ls.close(liteGroup);
        Client ss = new Client("CPP");
        check("lite.SIMPLE_CONSUMER_on_lite_group.settings", () -> ss.settings(consumerSettings(
            ClientType.SIMPLE_CONSUMER, liteGroup, lite)));
        check("lite.SIMPLE_CONSUMER_on_lite_group.heartbeat", () -> heartbeat(ss, ClientType.SIMPLE_CONSUMER,
            liteGroup));
        ss.close(liteGroup);
        Client pn = new Client("CPP");
        check("lite.LITE_PUSH_CONSUMER_on_normal_group.settings", () -> pn.settings(consumerSettings(
            ClientType.LITE_PUSH_CONSUMER, group, normal)));
        pn.close(group);

        Client lp = new Client("CPP");
        check("lite.LITE_PUSH_CONSUMER.settings", () -> lp.settings(consumerSettings(ClientType.LITE_PUSH_CONSUMER,
            liteGroup, lite)));
        check("lite.LITE_PUSH_CONSUMER.heartbeat", () -> heartbeat(lp, ClientType.LITE_PUSH_CONSUMER, liteGroup));
        check("lite.sync.COMPLETE_ADD_empty", () -> syncLite(lp, LiteSubscriptionAction.COMPLETE_ADD, lite,
            liteGroup));
        check("lite.sync.PARTIAL_ADD_on_wildcard_group", () -> syncLite(lp, LiteSubscriptionAction.PARTIAL_ADD,
            lite, liteGroup, "x1"));
        check("lite.sync.PARTIAL_ADD_wrong_bind_topic", () -> syncLite(lp, LiteSubscriptionAction.PARTIAL_ADD,
            normal, liteGroup, "x1"));
        check("lite.sync.PARTIAL_ADD_65_chars", () -> syncLite(lp, LiteSubscriptionAction.PARTIAL_ADD, lite,
            liteGroup, "a".repeat(65)));
        // a few lite messages to receive through the wildcard group
        Client p3 = new Client("CPP");
        p3.settings(producerSettings(lite));
        for (int i = 0; i < 3; i++) {
            Message.Builder m = message(lite, ("{\"id\":" + (100 + i) + "}").getBytes(), MessageType.LITE);
            m.getSystemPropertiesBuilder().setLiteTopic("probe-lt-" + (i % 2));
            send(p3, m.build());
        }
        p3.close(null);
        check("lite.receive_manual", () -> {
            // LITE_PUSH_CONSUMER registration, but receive like a simple consumer:
            // auto_renew=false + explicit invisible duration
            StringBuilder sb = new StringBuilder();
            List<apache.rocketmq.v2.Message> got = new ArrayList<>();
            long until = System.currentTimeMillis() + 30_000;
            while (got.size() < 4 && System.currentTimeMillis() < until) {
                Recv x = receive(lp, liteGroup, liteQ, 16, 30_000L, 5_000L, false, 10_000);
                sb.append("[").append(x).append("] ");
                for (apache.rocketmq.v2.Message m : x.messages) {
                    got.add(m);
                    SystemProperties spx = m.getSystemProperties();
                    sb.append("lite_topic=").append(spx.getLiteTopic()).append(" type=").append(spx.getMessageType())
                        .append(" attempt=").append(spx.getDeliveryAttempt()).append(' ');
                    if (got.size() == 1) {
                        sb.append("change_invisible_with_lite_topic: ").append(changeInvisible(lp, liteGroup, lite,
                            spx.getMessageId(), spx.getReceiptHandle(), 15_000, spx.getLiteTopic())).append(' ');
                        continue;
                    }
                    if (got.size() == 2) {
                        sb.append("ack_without_lite_topic: ").append(ack(lp, liteGroup, lite, m, null)).append(' ');
                    }
                    sb.append("ack_with_lite_topic: ").append(ack(lp, liteGroup, lite, m, spx.getLiteTopic()))
                        .append(' ');
                }
            }
            return sb.toString();
        });
        check("lite.change_invisible_without_lite_topic", () -> {
            Client p5 = new Client("CPP");
            Message.Builder mb = message(lite, "{\"id\":200}".getBytes(), MessageType.LITE);
            mb.getSystemPropertiesBuilder().setLiteTopic("probe-lt-9");
            send(p5, mb.build());
            Recv x = receive(lp, liteGroup, liteQ, 16, 30_000L, 5_000L, false, 10_000);
            StringBuilder sb = new StringBuilder(x.toString());
            for (apache.rocketmq.v2.Message m : x.messages) {
                SystemProperties spx = m.getSystemProperties();
                sb.append(" lite_topic=").append(spx.getLiteTopic()).append(" cid_without_lite_topic: ")
                    .append(changeInvisible(lp, liteGroup, lite, spx.getMessageId(), spx.getReceiptHandle(), 15_000,
                        null));
                sb.append(" ack_with_lite_topic: ").append(ack(lp, liteGroup, lite, m, spx.getLiteTopic()));
            }
            return sb.toString();
        });
        check("lite.empty_poll_5s", () -> receive(lp, liteGroup, liteQ, 16, 30_000L, 5_000L, false, 10_000)
            .toString());
        check("lite.receive_invisible_9s", () -> receive(lp, liteGroup, liteQ, 16, 9_000L, 5_000L, false, 10_000)
            .toString());
        check("lite.receive_auto_renew", () -> receive(lp, liteGroup, liteQ, 16, null, 5_000L, true, 10_000)
            .toString());
        lp.close(liteGroup);
    }

    static String shortSettings(String s) {
        return s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }
}
