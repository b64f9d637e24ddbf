/* SPDX-License-Identifier: MIT */
/*
 * minicheck: the subset of Check's API that the suite uses, for targets where
 * Check cannot be installed (configure --with-minicheck).  Same test sources,
 * same fork-per-test isolation, timeouts and summary line as Check.
 */
#ifndef TFD_MINICHECK_H
#define TFD_MINICHECK_H

#include <stdint.h>

typedef struct TCase TCase;
typedef struct Suite Suite;
typedef struct SRunner SRunner;
typedef struct {
	const char *name;
	void (*fn)(int);
} MTest;

enum print_output { CK_SILENT, CK_MINIMAL, CK_NORMAL, CK_VERBOSE };

#define START_TEST(name)                                           \
	static void name##_fn(int);                                \
	static const MTest name##_mtest = { #name, name##_fn };    \
	static const MTest *name = &name##_mtest;                  \
	static void name##_fn(int _i __attribute__((unused)))
#define END_TEST

Suite *suite_create(const char *name);
void suite_add_tcase(Suite *s, TCase *tc);
TCase *tcase_create(const char *name);
void tcase_set_timeout(TCase *tc, double seconds);
#define tcase_add_test(tc, test) mc_tcase_add_test((tc), (test))
void mc_tcase_add_test(TCase *tc, const MTest *test);
SRunner *srunner_create(Suite *s);
void srunner_run_all(SRunner *sr, enum print_output mode);
int srunner_ntests_failed(SRunner *sr);
void srunner_free(SRunner *sr);

/* Reports a failed assertion from inside a test and ends that test's process. */
void mc_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

#define ck_assert_msg(expr, ...) \
	((expr) ? (void)0 : mc_fail(__FILE__, __LINE__, __VA_ARGS__))
#define ck_assert(expr) ck_assert_msg((expr), "Assertion '%s' failed", #expr)

#define MC_CMP(type, fmt, x, op, y)                                                 \
	do {                                                                        \
		type mc_x = (type)(x);                                              \
		type mc_y = (type)(y);                                              \
		ck_assert_msg(mc_x op mc_y, "Assertion '%s' failed: %s == " fmt     \
			      ", %s == " fmt, #x " " #op " " #y, #x, mc_x, #y, mc_y); \
	} while (0)
#define ck_assert_int_eq(x, y) MC_CMP(intmax_t, "%jd", x, ==, y)
#define ck_assert_int_ne(x, y) MC_CMP(intmax_t, "%jd", x, !=, y)
#define ck_assert_int_lt(x, y) MC_CMP(intmax_t, "%jd", x, <, y)
#define ck_assert_int_le(x, y) MC_CMP(intmax_t, "%jd", x, <=, y)
#define ck_assert_int_gt(x, y) MC_CMP(intmax_t, "%jd", x, >, y)
#define ck_assert_int_ge(x, y) MC_CMP(intmax_t, "%jd", x, >=, y)
#define ck_assert_uint_eq(x, y) MC_CMP(uintmax_t, "%ju", x, ==, y)
#define ck_assert_uint_lt(x, y) MC_CMP(uintmax_t, "%ju", x, <, y)
#define ck_assert_uint_le(x, y) MC_CMP(uintmax_t, "%ju", x, <=, y)
#define ck_assert_uint_gt(x, y) MC_CMP(uintmax_t, "%ju", x, >, y)
#define ck_assert_uint_ge(x, y) MC_CMP(uintmax_t, "%ju", x, >=, y)
#define ck_assert_ptr_eq(x, y) MC_CMP(const void *, "%p", x, ==, y)
#define ck_assert_ptr_ne(x, y) MC_CMP(const void *, "%p", x, !=, y)

#endif /* TFD_MINICHECK_H */
