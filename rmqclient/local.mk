# rmqclient/: a RocketMQ 5 gRPC client in C (grpc C core + protobuf-c): channel, calls,
# routes, telemetry, operations, codec, signing, status codes, message ids. It stands apart
# from what is built on it, like librdkafka: it depends on base/ only, and the rocketmq-grpc
# connector (connectors/rocketmq/) uses its one public header, rmqclient/rmq_client.h; its
# other headers are private to this folder. Built only when configure found grpc,
# libprotobuf-c and protoc-c (HAVE_RMQ). The .proto files are ours (proto/); protoc-c
# generates their C code into the BUILD tree (never the source tree), compiled without
# warnings (protoc-c output is not ours).
EXTRA_DIST += proto/apache/rocketmq/v2/definition.proto proto/apache/rocketmq/v2/service.proto

if HAVE_RMQ
RMQ_PROTO_GEN = \
	proto/google/protobuf/duration.pb-c.c proto/google/protobuf/duration.pb-c.h \
	proto/google/protobuf/timestamp.pb-c.c proto/google/protobuf/timestamp.pb-c.h \
	proto/apache/rocketmq/v2/definition.pb-c.c proto/apache/rocketmq/v2/definition.pb-c.h \
	proto/apache/rocketmq/v2/service.pb-c.c proto/apache/rocketmq/v2/service.pb-c.h
BUILT_SOURCES += $(RMQ_PROTO_GEN)
CLEANFILES += $(RMQ_PROTO_GEN) proto/.stamp

# duration/timestamp come from libprotobuf-dev (/usr/include/google/protobuf).
PROTOBUF_INCLUDEDIR ?= /usr/include
proto/.stamp: $(srcdir)/proto/apache/rocketmq/v2/definition.proto \
		$(srcdir)/proto/apache/rocketmq/v2/service.proto
	$(AM_V_GEN)$(MKDIR_P) proto && \
	$(PROTOC_C) --c_out=proto -I$(srcdir)/proto -I$(PROTOBUF_INCLUDEDIR) \
		$(srcdir)/proto/apache/rocketmq/v2/definition.proto \
		$(srcdir)/proto/apache/rocketmq/v2/service.proto \
		$(PROTOBUF_INCLUDEDIR)/google/protobuf/duration.proto \
		$(PROTOBUF_INCLUDEDIR)/google/protobuf/timestamp.proto && \
	touch $@
$(RMQ_PROTO_GEN): proto/.stamp

# generated code: no warnings (protoc-c output is not ours)
noinst_LIBRARIES += librmqproto.a
librmqproto_a_SOURCES =
nodist_librmqproto_a_SOURCES = $(RMQ_PROTO_GEN)
librmqproto_a_CFLAGS = -w $(SAN_CFLAGS) $(GRPC_CFLAGS)
librmqproto_a_CPPFLAGS = -I$(top_builddir)/proto $(GRPC_CFLAGS)

librocketsql_a_SOURCES += \
	rmqclient/rmq_client.h rmqclient/rmq_int.h \
	rmqclient/rmq_client_int.h rmqclient/rmq_client.c \
	rmqclient/rmq_channel.c \
	rmqclient/rmq_call.c rmqclient/rmq_telemetry.c \
	rmqclient/rmq_route.c rmqclient/rmq_ops.c \
	rmqclient/rmq_sync.c rmqclient/rmq_codec.c \
	rmqclient/rmq_decode.c \
	rmqclient/rmq_rpc.c rmqclient/rmq_status.c \
	rmqclient/rmq_sign.c rmqclient/rmq_msgid.c
# (rmq_codec.c and rmq_decode.c include the generated headers)
AM_CPPFLAGS += -I$(top_builddir)/proto $(GRPC_CFLAGS)
# The objects that include the generated headers depend on them, so targets that skip
# BUILT_SOURCES (`make librocketsql.a`, `make tests/unit/test_rmq_codec`) generate them
# first; automake's dependency tracking takes over after the first build.
RMQ_PROTO_H = $(filter %.h,$(RMQ_PROTO_GEN))
rmqclient/rmq_codec.$(OBJEXT) rmqclient/rmq_decode.$(OBJEXT): $(RMQ_PROTO_H)
RSQL_LIBS += librmqproto.a $(GRPC_LIBS)
endif
