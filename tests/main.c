/* SPDX-License-Identifier: MIT */
/* Description: runs every timerfd test case against the public API and reports through Check. */
#include "config.h"

#include <stdlib.h>

#include "suite.h"

/* Global, so that valgrind sees it reachable in a case whose forked child's main thread exits. */
static Suite *s;

int
main(void)
{
	s = suite_create("timerfd");

	suite_add_tcase(s, tcase_create_flags());
	suite_add_tcase(s, tcase_arming());
	suite_add_tcase(s, tcase_periodic());
	suite_add_tcase(s, tcase_gettime());
	suite_add_tcase(s, tcase_reading());
	suite_add_tcase(s, tcase_bad_input());
	suite_add_tcase(s, tcase_alarm_clocks());
	suite_add_tcase(s, tcase_time64());
	suite_add_tcase(s, tcase_threads());
	suite_add_tcase(s, tcase_descriptors());
	suite_add_tcase(s, tcase_processes());
	suite_add_tcase(s, tcase_families());
	suite_add_tcase(s, tcase_differences());
	suite_add_tcase(s, tcase_clock_steps());
	suite_add_tcase(s, tcase_access());
	suite_add_tcase(s, tcase_server_life());

	return run_suite(s);
}
