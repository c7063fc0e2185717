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
        if (args.length != 4 || !args[0].equals("route")) {
            System.err.println("usage: RsqlRmqProbe route HOST:PORT TOPIC TIMEOUT_SECONDS | admin ARGS...");
            System.exit(2);
        }
        args = java.util.Arrays.copyOfRange(args, 1, args.length);
        String endpoint = args[0];
        String topic = args[1];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
        int colon = endpoint.lastIndexOf(':');
        String host = endpoint.substring(0, colon);
        int port = Integer.parseInt(endpoint.substring(colon + 1));

        ManagedChannel channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
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
}
