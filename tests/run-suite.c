/* SPDX-License-Identifier: MIT */
/* Runs a Check suite verbosely and turns its result into the test program's exit status. */
#include "config.h"

#include <stdlib.h>

#include "suite.h"

int
run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
