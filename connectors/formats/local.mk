# connectors/formats/: json, csv, raw and debezium-json (their option tables and codecs).
librocketsql_a_SOURCES += \
	connectors/formats/rsql_format.h connectors/formats/fmt_int.h \
	connectors/formats/fmt_opts.c connectors/formats/fmt_codec.c \
	connectors/formats/fmt_json.c connectors/formats/fmt_json_value.c connectors/formats/fmt_json_scan.c \
	connectors/formats/fmt_csv.c connectors/formats/fmt_raw.c connectors/formats/fmt_debezium.c

# the nested-body benchmark (run by hand; bench/README.md)
EXTRA_DIST += bench/nested.sh
