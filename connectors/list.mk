# The connectors, one line each, in the order SHOW CONNECTORS and docs/CONNECTORS.md list
# them. A new connector is a new folder with its local.mk (its sources, and
# `RSQL_CONNECTORS += <name>` for each descriptor rsql_<name>_conn_def it defines) plus
# one line here.
include connectors/rocketmq/local.mk
include connectors/file/local.mk
include connectors/sqlite/local.mk
include connectors/datagen/local.mk
include connectors/stdio/local.mk
include connectors/postgres/local.mk
include connectors/kafka/local.mk
