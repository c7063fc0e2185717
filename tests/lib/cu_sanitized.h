/*
** RSQL_TEST_SANITIZED: 1 in an AddressSanitizer or ThreadSanitizer build, whose shadow memory
** and quarantine dominate a process's peak RSS, so tests that compare peak RSS check their
** runs and counts there but say that they did not compare the RSS.
*/
#ifndef RSQL_TEST_CU_SANITIZED_H
#define RSQL_TEST_CU_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSQL_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RSQL_TEST_SANITIZED 1
#endif
#endif
#ifndef RSQL_TEST_SANITIZED
#define RSQL_TEST_SANITIZED 0
#endif

#endif
