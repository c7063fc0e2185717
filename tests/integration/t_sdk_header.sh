#!/usr/bin/env bash
# The connector SDK header, rocketsql/connector.h (generated into the build tree from the
# internal headers by sdk/mkheader.sh), is self-contained: a translation unit that includes
# only it, and uses its descriptor, option rows, typed-configuration macros, records,
# outcomes, buffers and encoders, compiles as strict C11 with -Wall -Wextra -Werror
# -pedantic, with nothing but that header's directory on the include path. Its RSQL_VERSION
# is the binary's, and the rocketsql binary exports every function the header declares.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
CC=${RSQL_CC:-cc}
inc="$RSQL_BUILDDIR/sdk"
[ -f "$inc/rocketsql/connector.h" ] || fail "no $inc/rocketsql/connector.h"
grep -q '^#include "' "$inc/rocketsql/connector.h" &&
    fail "the SDK header includes a project header"

cat >"$T/use.c" <<'C'
#include <rocketsql/connector.h>

typedef struct t_conf {
    const char *command;
    int64_t timeout_ms;
    bool verbose;
    int mode;
} t_conf_t;

static const char *const t_modes[] = {"a", "b", NULL};
static const char *const t_formats[] = {"json", "csv", NULL};

static const rsql_opt_def_t t_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("t"),
    RSQL_OPT_ROW_F("command", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED | RSQL_OPT_F_SINK, NULL, 0, 0,
                   NULL, "The command.", RSQL_OPT_FIELD(t_conf_t, command, const char *)),
    RSQL_OPT_ROW_F("timeout", RSQL_OPT_DURATION, 0, "5s", 1, 0, NULL, "Per row.",
                   RSQL_OPT_FIELD(t_conf_t, timeout_ms, int64_t)),
    RSQL_OPT_ROW_F("verbose", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL, "Talk.",
                   RSQL_OPT_FIELD(t_conf_t, verbose, bool)),
    RSQL_OPT_ROW_F("mode", RSQL_OPT_ENUM, 0, "a", 0, 0, t_modes, "Mode.",
                   RSQL_OPT_FIELD(t_conf_t, mode, int)),
    RSQL_OPT_ROW_F("format", RSQL_OPT_ENUM, 0, "json", 0, 0, t_formats, "Format.", 0),
    RSQL_OPT_END,
};

struct rsql_sink {
    rsql_encoder_t *enc;
    rsql_buf_t buf;
    rsql_delivery_cb deliver;
    void *opaque;
};

static rsql_err_t t_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    const t_conf_t *conf = ctx->conf;
    rsql_sink_t *k = rsql_calloc(1, sizeof *k);
    if (!k) {
        return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    rsql_buf_init(&k->buf);
    k->enc = rsql_encoder_new(t_formats[conf->mode], ctx->format_conf, ctx->n_columns,
                              ctx->column_names, ctx->column_types, err);
    k->deliver = ctx->deliver;
    k->opaque = ctx->deliver_opaque;
    *out = k;
    return k->enc ? RSQL_OK : err->code;
}

static rsql_err_t t_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                          rsql_error_t *err)
{
    rsql_sink_result_t res[4];
    for (int i = 0; i < n && i < 4; i++) {
        rsql_buf_reset(&k->buf);
        if (rsql_encode(k->enc, rows[i].values, &k->buf, err) != RSQL_OK) {
            return err->code;
        }
        rsql_value_format(&rows[i].values[0], &k->buf);
        res[i].code = rows[i].rec->offset > 0 && !rsql_deadline_passed(rsql_deadline_in(5))
                          ? RSQL_OK
                          : RSQL_ERR_SINK;
        (void)rsql_err_code_retriable(res[i].code); /* the class of a result code */
        res[i].meta[0] = '\0';
        snprintf(res[i].msg, sizeof res[i].msg, "%s", rsql_err_str(res[i].code));
    }
    k->deliver(k->opaque, batch_id, n, res);
    return RSQL_OK;
}

static void t_close(rsql_sink_t *k)
{
    rsql_encoder_destroy(k->enc);
    rsql_buf_deinit(&k->buf);
    rsql_free(k);
}

static const rsql_sink_ops_t t_sink = {
    .open = t_open, .write = t_write, .flush = NULL, .stored_positions = NULL, .close = t_close,
};

static const rsql_connector_def_t t_def = {
    .name = "t",
    .description = "A test.",
    .caps = RSQL_CAP_SINK,
    .opts = t_opts,
    .formats = t_formats,
    .conf_size = sizeof(t_conf_t),
    .sink = &t_sink,
};

static const rsql_connector_def_t *const t_list[] = {&t_def, NULL};
static const rsql_plugin_t t_plugin = {RSQL_CONNECTOR_ABI_VERSION, "t", t_list};

RSQL_PLUGIN_EXPORT const rsql_plugin_t *rocketsql_plugin(void)
{
    return &t_plugin;
}

const char *t_version(void);
const char *t_version(void)
{
    return RSQL_VERSION;
}
C
"$CC" -std=c11 -Wall -Wextra -Werror -pedantic -fPIC -I"$inc" -c "$T/use.c" -o "$T/use.o" \
    2>"$T/cc.err" || fail "the SDK header does not compile on its own: $(cat "$T/cc.err")"
ok "a unit including only <rocketsql/connector.h> compiles (c11 -Wall -Wextra -Werror -pedantic)"

version=$(sed -n 's/^#define RSQL_VERSION "\(.*\)"$/\1/p' "$inc/rocketsql/connector.h")
[ "rocketsql $version" = "$("$RSQL" --version)" ] ||
    fail "RSQL_VERSION '$version' is not the binary's: $("$RSQL" --version)"
abi=$(sed -n 's/^#define RSQL_CONNECTOR_ABI_VERSION \([0-9]*\)$/\1/p' \
    "$RSQL_SRCDIR/connectors/rsql_connector.h")
grep -q "^#define RSQL_CONNECTOR_ABI_VERSION $abi\$" "$inc/rocketsql/connector.h" ||
    fail "RSQL_CONNECTOR_ABI_VERSION differs from connectors/rsql_connector.h ($abi)"
ok "RSQL_VERSION is the binary's, RSQL_CONNECTOR_ABI_VERSION is connectors/rsql_connector.h's"

# Every declared function (an rsql_ name before '(' once comments are gone) is exported.
"$CC" -E -P -x c "$inc/rocketsql/connector.h" | tr '\n' ' ' |
    grep -o '[^A-Za-z0-9_]rsql_[A-Za-z0-9_]*(' | sed 's/^.//; s/($//' | grep -v '_t$' |
    LC_ALL=C sort -u >"$T/declared"
[ "$(wc -l <"$T/declared")" -gt 50 ] || fail "too few declarations found: $(cat "$T/declared")"
nm -D --defined-only "$RSQL" | awk '{print $NF}' | LC_ALL=C sort -u >"$T/exported"
missing=$(LC_ALL=C comm -23 "$T/declared" "$T/exported")
[ -z "$missing" ] || fail "declared in the SDK header, not exported by rocketsql: $missing"
ok "rocketsql exports all $(wc -l <"$T/declared") functions the SDK header declares"
echo "$n_checks passed, 0 failed"
