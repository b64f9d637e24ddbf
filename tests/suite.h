/* SPDX-License-Identifier: MIT */
/* The test cases of the timerfd suite, one TCase per concern, all on the public API. */
#ifndef TFD_TEST_SUITE_H
#define TFD_TEST_SUITE_H

#include <check.h>

TCase *tcase_create_flags(void);
TCase *tcase_arming(void);
TCase *tcase_periodic(void);
TCase *tcase_gettime(void);
TCase *tcase_reading(void);
TCase *tcase_bad_input(void);
TCase *tcase_alarm_clocks(void);
TCase *tcase_time64(void);
TCase *tcase_threads(void);
TCase *tcase_descriptors(void);
TCase *tcase_processes(void);
TCase *tcase_families(void);
TCase *tcase_differences(void);
TCase *tcase_clock_steps(void);
TCase *tcase_access(void);
TCase *tcase_server_life(void);

/* Runs @s verbosely (and frees it): EXIT_SUCCESS if every case passed. */
int run_suite(Suite *s);

#endif /* TFD_TEST_SUITE_H */
