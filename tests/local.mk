# tests/: shared test helpers; each module's local.mk adds its own unit test.
EXTRA_DIST += tests/lib/cu_main.h
