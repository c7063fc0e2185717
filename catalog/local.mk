# catalog/: the SQLite catalog and state database (tables, jobs, job runs, offsets).
librocketsql_a_SOURCES += \
	catalog/rsql_catalog.h catalog/catalog_int.h \
	catalog/catalog.c catalog/catalog_jobs.c \
	catalog/catalog_migrate.c \
	catalog/catalog_runs.c \
	catalog/state_offsets.c catalog/state_kv.c

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_catalog
TESTS += tests/unit/test_catalog
tests_unit_test_catalog_SOURCES = tests/unit/test_catalog.c
tests_unit_test_catalog_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_catalog_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_catalog_schema
TESTS += tests/unit/test_catalog_schema
tests_unit_test_catalog_schema_SOURCES = tests/unit/test_catalog_schema.c
tests_unit_test_catalog_schema_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_catalog_schema_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
