-- MySQL changes captured by Canal, through RocketMQ, applied to a PostgreSQL replica.
--
-- Canal reads MySQL's binlog and publishes each statement's changes to a RocketMQ topic as a
-- flat JSON message (canal-json): the rows inserted, updated (with the old values of the
-- changed columns) or deleted. rocketsql reads the topic as a changelog and applies it to a
-- PostgreSQL table by its PRIMARY KEY: an insert or update is an upsert, a delete deletes
-- the key, so the table follows shop.orders in MySQL. DDL messages and the changes of other
-- tables are skipped. The sink records each applied message's id in the same transaction
-- as its rows, so a message delivered again (rocketsql killed before its ack) is not applied
-- twice; EXPLAIN says so, and that the sink takes a full changelog by the key.
--
-- Canal publishes to RocketMQ itself. In its canal.properties:
--   canal.serverMode = rocketMQ
--   rocketmq.namesrv.addr = <the name server, host:9876>
--   rocketmq.producer.group = <a producer group>
--   canal.mq.flatMessage = true        (JSON messages; false sends Canal's protobuf)
-- and in the instance's instance.properties:
--   canal.instance.filter.regex = shop\\.orders
--   canal.mq.topic = cdc_orders
--   canal.mq.partition = 0             (every message to one queue: the binlog's order)
-- Changes must be applied in the order MySQL made them, so the topic is a FIFO topic and
-- the consumer group consumes orderly: a queue's messages are then delivered one batch after
-- the other, in order (mqadmin updateTopic -n .. -c .. -t cdc_orders -a +message.type=FIFO
-- and mqadmin updateSubGroup -n .. -c .. -g cdc_to_pg -o true; locally scripts/rocketmq
-- topic cdc_orders fifo and scripts/rocketmq group cdc_to_pg --fifo). Canal may spread the
-- rows over queues by key instead (canal.mq.partitionsNum, canal.mq.partitionHash =
-- shop.orders:id): each key's changes stay in order, as long as no update changes a key.
--
-- Against a proxy on 127.0.0.1:8081 and the PostgreSQL of `scripts/postgres start`:
--
--   rocketsql --catalog cdc.db -f examples/cdc-to-postgres.sql
--
-- It stops once the topic has been idle for 10 s (scan.idle-timeout; drop it to run on).
-- tests/rocketmq/t_cdc_canal_example.sh runs a copy of this file (its endpoint, names and URL
-- those of the local servers) on messages that tests/lib/canal_gen.py writes as Canal does,
-- sent by the official Java client, kills it with SIGKILL mid-run, runs it again, and checks
-- with psql that the table equals the generator's final table row for row. A message:
-- {"data":[{"id":"7","name":"tea","qty":"3","price":"4.50","updated":"2026-01-02 03:04:05.678"}],
--  "old":[{"qty":"2"}],"type":"UPDATE","database":"shop","table":"orders","isDdl":false,
--  "pkNames":["id"],"es":1767323045678,"ts":1767323045700,"id":42,"sql":"",...}

CREATE TABLE IF NOT EXISTS orders_changes (
  id BIGINT NOT NULL,
  name STRING,
  qty INT,
  price DECIMAL(10, 2),
  updated TIMESTAMP(3)
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'cdc_orders',
  'source.consumer-group' = 'cdc_to_pg',
  'source.invisible-duration' = '10s',
  'scan.idle-timeout' = '10s',
  'format' = 'canal-json',
  'canal-json.database.include' = 'shop',
  'canal-json.table.include' = 'orders'
);

CREATE TABLE IF NOT EXISTS orders_replica (
  id BIGINT NOT NULL,
  name STRING,
  qty INT,
  price DECIMAL(10, 2),
  updated TIMESTAMP(3),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'postgres',
  'url' = 'postgresql://rsqlpg@127.0.0.1:54329/rocketsql',
  'table-name' = 'cdc_orders_replica'
);

EXPLAIN INSERT INTO orders_replica SELECT * FROM orders_changes;
INSERT INTO orders_replica SELECT * FROM orders_changes;
