# sql/: the SQL front end: tokenizer, keyword table, lemon grammar, AST
# builders, the push driver, statement completion and the AST dump.
librocketsql_a_SOURCES += \
	sql/rsql_sql.h sql/sql_int.h \
	sql/sql_tokenize.c sql/sql_keywords.c sql/sql_ast.c sql/sql_ast_stmt.c \
	sql/sql_ast_fn.c sql/sql_ast_time.c sql/sql_parse_driver.c sql/sql_complete.c sql/sql_dump.c sql/sql_unsupported.c \
	sql/sql_parse_gen.c

# The parser is generated into the build tree (never the source tree) and
# compiled through sql/sql_parse_gen.c, which includes it.  One lemon run
# writes both files; the header rule only re-runs it when the header is
# missing, so parallel make never runs lemon twice.  The header is removed
# first because lemon leaves an unchanged header untouched (older than the
# .c, which would make it look out of date forever).
BUILT_SOURCES += sql/sql_parse.c sql/sql_parse.h
CLEANFILES += sql/sql_parse.c sql/sql_parse.h sql/sql_parse.out
EXTRA_DIST += sql/sql_parse.y

sql/sql_parse.c: $(srcdir)/sql/sql_parse.y
	$(AM_V_GEN)$(MKDIR_P) sql && rm -f sql/sql_parse.h && \
	$(LEMON) -q -T$(LEMPAR) -d$(builddir)/sql $(srcdir)/sql/sql_parse.y
sql/sql_parse.h: sql/sql_parse.c
	@test -f $@ || { rm -f sql/sql_parse.c && $(MAKE) $(AM_MAKEFLAGS) sql/sql_parse.c; }

# Explicit order for builds that skip BUILT_SOURCES (`make librocketsql.a`);
# automake's dependency tracking takes over after the first build.
sql/sql_tokenize.$(OBJEXT) sql/sql_keywords.$(OBJEXT) sql/sql_ast.$(OBJEXT) \
sql/sql_ast_stmt.$(OBJEXT) sql/sql_ast_fn.$(OBJEXT) \
sql/sql_parse_driver.$(OBJEXT) sql/sql_complete.$(OBJEXT) sql/sql_dump.$(OBJEXT) sql/sql_unsupported.$(OBJEXT): \
	sql/sql_parse.h
sql/sql_parse_gen.$(OBJEXT): sql/sql_parse.c sql/sql_parse.h

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_sql
TESTS += tests/unit/test_sql
tests_unit_test_sql_SOURCES = tests/unit/test_sql.c
tests_unit_test_sql_CPPFLAGS = $(AM_CPPFLAGS) -DRSQL_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_sql_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_sql_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests/unit/tests_unit_test_sql-test_sql.$(OBJEXT): sql/sql_parse.h
endif
