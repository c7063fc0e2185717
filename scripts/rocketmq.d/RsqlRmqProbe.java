/*
 * Helper JVM for scripts/rocketmq, compiled by it against the server
 * classpath (grpc-java and rocketmq-proto come with rocketmq-proxy).
 *
 * RsqlRmqProbe route HOST:PORT TOPIC TIMEOUT_SECONDS
 *   Readiness probe: asks the proxy over gRPC (MessagingService/QueryRoute)
 *   for the route of TOPIC until it answers OK with at least one queue.
 *   prints: route-ok topic=T queues=N accept=[NORMAL]   (exit 0)
 *       or: route-failed ... last=<status or exception>  (exit 1)
 *
 * RsqlRmqProbe namesrv SELF_HOST:PORT NAMESRV-ARGS...
 *   Runs the 5.5.0 name server (NamesrvStartup) with one change: the name
 *   server's own remoting client is told its address is SELF_HOST:PORT.
 *   NamesrvController.start() gives that client NetworkUtil.getLocalAddress(),
 *   which skips loopback and picks the machine's network address.
 *
 * RsqlRmqProbe cluster NAMESRV CLUSTER BROKER TIMEOUT_SECONDS [TOPIC]
 *   Waits until the name server knows what the cluster-mode proxy needs at
 *   start: BROKER in CLUSTER's cluster info with a master address, and a route
 *   for the topic named CLUSTER (the proxy's sample topic when it creates its
 *   system topics) that lists that broker with the same master address.
 *   With TOPIC, then creates that NORMAL topic (1 queue) on the broker and
 *   waits until the name server has its route (the broker's single-topic
 *   registration was accepted).
 *   prints: cluster-ok cluster=C broker=B master=ADDR [topic=T]  (exit 0)
 *       or: cluster-failed ... last=<what was missing>          (exit 1)
 *
 * A secured server (scripts/rocketmq --secure): -Drsql.rmq.ak=USER -Drsql.rmq.sk=SECRET make
 * route sign its request (the `authorization` header of ACL 2.0) and cluster use an ACL RPC
 * hook; -Drsql.rmq.ca=PEM makes route speak TLS and verify the proxy against that CA.
 *
 * RsqlRmqProbe admin-batch FILE
 *   The same for every line of FILE (one command's arguments per line), in one JVM.
 *
 * RsqlRmqProbe admin MQADMIN-ARGS...
 *   Runs the RocketMQ admin tool (MQAdminStartup.main0) and exits right after
 *   it returns; the stock main leaves client threads that hold the JVM for
 *   about 3 more seconds.
 */

import apache.rocketmq.v2.Address;
import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Endpoints;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.Resource;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

public final class RsqlRmqProbe {
    private static Metadata.Key<String> key(String name) {
        return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 1 && args[0].equals("admin")) {
            org.apache.rocketmq.tools.command.MQAdminStartup.main0(
                java.util.Arrays.copyOfRange(args, 1, args.length), null);
            System.out.flush();
            System.exit(0);
        }
        if (args.length == 2 && args[0].equals("admin-batch")) {
            // one mqadmin command per line (arguments split on blanks), one JVM for all
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get(args[1]))) {
                line = line.trim();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                System.out.println("> " + line);
                org.apache.rocketmq.tools.command.MQAdminStartup.main0(line.split("\\s+"), null);
                System.out.flush();
            }
            System.exit(0);
        }
        if (args.length >= 2 && args[0].equals("namesrv")) {
            namesrv(args[1], java.util.Arrays.copyOfRange(args, 2, args.length));
            return;
        }
        if ((args.length == 5 || args.length == 6) && args[0].equals("cluster")) {
            System.exit(cluster(args[1], args[2], args[3], Long.parseLong(args[4]),
                args.length == 6 ? args[5] : null));
        }
        if (args.length != 4 || !args[0].equals("route")) {
            System.err.println("usage: RsqlRmqProbe route HOST:PORT TOPIC TIMEOUT_SECONDS"
                + " | cluster NAMESRV CLUSTER BROKER TIMEOUT_SECONDS | namesrv SELF ARGS... | admin ARGS...");
            System.exit(2);
        }
        args = java.util.Arrays.copyOfRange(args, 1, args.length);
        String endpoint = args[0];
        String topic = args[1];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
        int colon = endpoint.lastIndexOf(':');
        String host = endpoint.substring(0, colon);
        int port = Integer.parseInt(endpoint.substring(colon + 1));

        String ca = System.getProperty("rsql.rmq.ca");
        String ak = System.getProperty("rsql.rmq.ak"), sk = System.getProperty("rsql.rmq.sk");
        NettyChannelBuilder cb = NettyChannelBuilder.forAddress(host, port);
        if (ca != null && !ca.isEmpty()) {
            cb.sslContext(io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts.forClient()
                .trustManager(new java.io.File(ca)).build());
        } else {
            cb.usePlaintext();
        }
        ManagedChannel channel = cb.build();
        String clientId = "rsql-probe@" + ProcessHandle.current().pid();
        String last = "no attempt";
        try {
            while (true) {
                Metadata md = new Metadata();
                md.put(key("x-mq-language"), "JAVA");
                md.put(key("x-mq-protocol"), "v2");
                md.put(key("x-mq-client-version"), "5.2.0");
                md.put(key("x-mq-client-id"), clientId);
                md.put(key("x-mq-request-id"), UUID.randomUUID().toString());
                md.put(key("x-mq-namespace"), "");
                if (ak != null && sk != null) {
                    String dt = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                        .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.now());
                    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA1");
                    mac.init(new javax.crypto.spec.SecretKeySpec(
                        sk.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA1"));
                    StringBuilder hex = new StringBuilder();
                    for (byte b : mac.doFinal(dt.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
                        hex.append(String.format("%02X", b));
                    }
                    md.put(key("x-mq-date-time"), dt);
                    md.put(key("authorization"), "MQv2-HMAC-SHA1 Credential=" + ak
                        + ", SignedHeaders=x-mq-date-time, Signature=" + hex);
                }
                QueryRouteRequest req = QueryRouteRequest.newBuilder()
                    .setTopic(Resource.newBuilder().setName(topic))
                    .setEndpoints(Endpoints.newBuilder().setScheme(AddressScheme.IPv4)
                        .addAddresses(Address.newBuilder().setHost(host).setPort(port)))
                    .build();
                try {
                    QueryRouteResponse resp = MessagingServiceGrpc.newBlockingStub(channel)
                        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
                        .withDeadlineAfter(3, TimeUnit.SECONDS)
                        .queryRoute(req);
                    if (resp.getStatus().getCode() == Code.OK && resp.getMessageQueuesCount() > 0) {
                        TreeSet<String> types = new TreeSet<>();
                        for (MessageQueue q : resp.getMessageQueuesList()) {
                            q.getAcceptMessageTypesList().forEach(t -> types.add(t.name()));
                        }
                        System.out.println("route-ok topic=" + topic + " queues=" + resp.getMessageQueuesCount()
                            + " accept=" + types);
                        return;
                    }
                    last = resp.getStatus().getCode() + " " + resp.getStatus().getMessage();
                } catch (RuntimeException e) {
                    last = e.toString();
                }
                if (System.nanoTime() > deadline) {
                    System.out.println("route-failed topic=" + topic + " endpoint=" + endpoint + " last=" + last);
                    System.exit(1);
                }
                Thread.sleep(500);
            }
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(2, TimeUnit.SECONDS);
        }
    }

    /* NamesrvStartup.start(controller), with the controller's remoting client
     * replaced (after initialize(), before start()) by one whose name server
     * address list is always SELF. */
    private static void namesrv(String self, String[] args) throws Exception {
        org.apache.rocketmq.namesrv.NamesrvStartup.parseCommandlineAndConfigFile(args);
        final org.apache.rocketmq.namesrv.NamesrvController controller =
            org.apache.rocketmq.namesrv.NamesrvStartup.createNamesrvController();
        if (!controller.initialize()) {
            System.err.println("name server initialize() failed");
            controller.shutdown();
            System.exit(-3);
        }
        java.lang.reflect.Field clientField =
            org.apache.rocketmq.namesrv.NamesrvController.class.getDeclaredField("remotingClient");
        java.lang.reflect.Field configField =
            org.apache.rocketmq.namesrv.NamesrvController.class.getDeclaredField("nettyClientConfig");
        clientField.setAccessible(true);
        configField.setAccessible(true);
        org.apache.rocketmq.remoting.RemotingClient unused =
            (org.apache.rocketmq.remoting.RemotingClient) clientField.get(controller);
        final java.util.List<String> selfList = java.util.Collections.singletonList(self);
        clientField.set(controller, new org.apache.rocketmq.remoting.netty.NettyRemotingClient(
                (org.apache.rocketmq.remoting.netty.NettyClientConfig) configField.get(controller)) {
            @Override
            public void updateNameServerAddressList(java.util.List<String> addrs) {
                super.updateNameServerAddressList(selfList);
            }
        });
        try {
            unused.shutdown(); // never started; frees its executors
        } catch (RuntimeException e) {
            // nothing was started, nothing to free
        }
        Runtime.getRuntime().addShutdownHook(new Thread(controller::shutdown, "rsql-namesrv-shutdown"));
        controller.start();
        System.out.println("The Name Server boot success (own client on " + self + ")");
    }

    /* See the header: what the proxy needs from the name server before it starts. */
    private static int cluster(String namesrv, String clusterName, String brokerName, long timeoutSec,
        String topic) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSec);
        String ak = System.getProperty("rsql.rmq.ak"), sk = System.getProperty("rsql.rmq.sk");
        org.apache.rocketmq.tools.admin.DefaultMQAdminExt admin = ak == null
            ? new org.apache.rocketmq.tools.admin.DefaultMQAdminExt(3000)
            : new org.apache.rocketmq.tools.admin.DefaultMQAdminExt(
                new org.apache.rocketmq.acl.common.AclClientRPCHook(
                    new org.apache.rocketmq.acl.common.SessionCredentials(ak, sk)), 3000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName("rsql-cluster-probe-" + ProcessHandle.current().pid());
        admin.setAdminExtGroup("rsql_cluster_probe_" + ProcessHandle.current().pid());
        admin.start();
        String last = "no attempt";
        try {
            while (true) {
                try {
                    org.apache.rocketmq.remoting.protocol.body.ClusterInfo ci = admin.examineBrokerClusterInfo();
                    java.util.Set<String> names = ci.getClusterAddrTable() == null ? null
                        : ci.getClusterAddrTable().get(clusterName);
                    org.apache.rocketmq.remoting.protocol.route.BrokerData bd = ci.getBrokerAddrTable() == null ? null
                        : ci.getBrokerAddrTable().get(brokerName);
                    String master = bd == null || bd.getBrokerAddrs() == null ? null
                        : bd.getBrokerAddrs().get(0L);
                    if (names == null || !names.contains(brokerName)) {
                        last = "broker " + brokerName + " not in cluster " + clusterName + " (clusters: "
                            + ci.getClusterAddrTable() + ")";
                    } else if (master == null) {
                        last = "broker " + brokerName + " has no master address";
                    } else {
                        org.apache.rocketmq.remoting.protocol.route.TopicRouteData rd =
                            admin.examineTopicRouteInfo(clusterName);
                        boolean found = false;
                        for (org.apache.rocketmq.remoting.protocol.route.BrokerData b : rd.getBrokerDatas()) {
                            if (brokerName.equals(b.getBrokerName()) && master.equals(b.getBrokerAddrs().get(0L))) {
                                found = true;
                            }
                        }
                        if (found && !rd.getQueueDatas().isEmpty()) {
                            if (topic == null || topicReady(admin, master, topic)) {
                                System.out.println("cluster-ok cluster=" + clusterName + " broker=" + brokerName
                                    + " master=" + master + (topic == null ? "" : " topic=" + topic));
                                return 0;
                            }
                            last = "topic " + topic + " created on " + master
                                + " but the name server has no route for it yet";
                        } else {
                            last = "route of topic " + clusterName + " does not list " + brokerName + " at " + master;
                        }
                    }
                } catch (Exception e) {
                    last = e.toString().replace('\n', ' ');
                }
                if (System.nanoTime() > deadline) {
                    System.out.println("cluster-failed cluster=" + clusterName + " broker=" + brokerName
                        + " namesrv=" + namesrv + " last=" + last);
                    return 1;
                }
                Thread.sleep(250);
            }
        } finally {
            admin.shutdown();
        }
    }

    /* Creates (idempotently) the NORMAL topic TOPIC with one queue on MASTER,
     * then reports whether the name server already routes it. */
    private static boolean topicReady(org.apache.rocketmq.tools.admin.DefaultMQAdminExt admin, String master,
        String topic) throws Exception {
        try {
            if (!admin.examineTopicRouteInfo(topic).getQueueDatas().isEmpty()) {
                return true;
            }
        } catch (Exception e) {
            // no route yet: create the topic below
        }
        org.apache.rocketmq.common.TopicConfig tc = new org.apache.rocketmq.common.TopicConfig(topic, 1, 1);
        java.util.Map<String, String> attrs = new java.util.HashMap<>();
        attrs.put("+message.type", "NORMAL");
        tc.setAttributes(attrs);
        admin.createAndUpdateTopicConfig(master, tc);
        try {
            return !admin.examineTopicRouteInfo(topic).getQueueDatas().isEmpty();
        } catch (Exception e) {
            return false;
        }
    }
}
