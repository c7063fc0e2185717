# planner/: binding, type checking, plans, EXPLAIN, the expression evaluator.
librocketsql_a_SOURCES += \
	planner/rsql_plan.h planner/plan_int.h \
	planner/plan_bind.c planner/plan_build.c planner/plan_cast.c planner/plan_changes.c \
	planner/plan_computed.c planner/plan_interval.c planner/plan_watermark.c planner/plan_eval.c planner/plan_prog.c planner/plan_explain.c planner/plan_explain_state.c planner/plan_explain_int.h planner/plan_funcs.c \
	planner/plan_agg.c planner/plan_agg_eval.c planner/plan_window.c planner/plan_dedup.c planner/plan_lookup.c planner/plan_meta.c planner/plan_names.c planner/plan_suggest.c \
	planner/fn_int.h planner/fn_str.c planner/fn_hash.c planner/fn_regex.c \
	planner/fn_time.c planner/fn_json.c planner/fn_jpath.c

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_planner tests/unit/test_eval tests/unit/test_funcs \
	tests/unit/test_plan_changes
TESTS += tests/unit/test_planner tests/unit/test_eval tests/unit/test_funcs \
	tests/unit/test_plan_changes
tests_unit_test_planner_SOURCES = tests/unit/test_planner.c
tests_unit_test_planner_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_planner_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_plan_changes_SOURCES = tests/unit/test_plan_changes.c
tests_unit_test_plan_changes_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_plan_changes_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_eval_SOURCES = tests/unit/test_eval.c
tests_unit_test_eval_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_eval_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_funcs_SOURCES = tests/unit/test_funcs.c
tests_unit_test_funcs_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_funcs_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
