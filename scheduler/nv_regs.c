/*
 * Register counts from NVIDIA ptxas verbose output (accelos/nv_regs.h).
 *
 * The log is untrusted text of a given length: every read is bounded by the
 * current line, a NUL byte ends the text, and numbers are range-checked while
 * they are read. Matching is on whole phrases of ptxas's fixed wording, and
 * an entry name must match exactly (the quote after it included), so kernel
 * "foo" never takes entry "foo2"'s line.
 *
 * Which "Used" line belongs to an entry. ptxas prints, per entry,
 *   Compiling entry function 'k' for 'sm_XX'
 *   Function properties for k             (and, in older releases, for the
 *       N bytes stack frame, ...           callees it inlined or calls)
 *   Used N registers, ...
 *   Compile time = ...                     (newer releases only)
 *   Function properties for <callee>       (newer releases: after the count)
 * so the entry's count is the first "Used" line after its "Compiling entry
 * function" line, before the next "Compiling ... function" line (entry or
 * not) and before its "Compile time" line. "Function properties" lines never
 * start or end a section: they name callees as well as the entry.
 */
#include "accelos/nv_regs.h"

#include <string.h>

/* First occurrence of the NUL-terminated `pat` in [p, end), or NULL. */
static const char *span_find(const char *p, const char *end, const char *pat)
{
	size_t n = strlen(pat);
	if (n == 0 || (size_t)(end - p) < n)
		return NULL;
	for (const char *q = p; q + n <= end; q++)
		if (*q == pat[0] && memcmp(q, pat, n) == 0)
			return q;
	return NULL;
}

/* "Compiling entry function '<name>'": 1 when <name> is exactly `name`. */
static int entry_is(const char *p, const char *end, const char *name, size_t name_len)
{
	static const char pat[] = "Compiling entry function '";
	const char *q = span_find(p, end, pat);
	if (!q)
		return 0;
	q += sizeof(pat) - 1;
	return (size_t)(end - q) > name_len && memcmp(q, name, name_len) == 0 && q[name_len] == '\'';
}

/* "Used <digits> register": the count, or -1 when the line is not one or the
 * count is out of range (absurd or malformed counts are never believed). */
static long used_registers(const char *p, const char *end)
{
	static const char pat[] = ": Used ";
	static const char unit[] = " register";
	const char *q = span_find(p, end, pat);
	if (!q)
		return -1;
	q += sizeof(pat) - 1;
	unsigned long v = 0;
	size_t digits = 0;
	for (; q < end && *q >= '0' && *q <= '9'; q++, digits++)
		if (v <= AOS_NV_REGS_MAX)
			v = v * 10 + (unsigned long)(*q - '0'); /* stops growing once too large */
	if (digits == 0 || (size_t)(end - q) < sizeof(unit) - 1 || memcmp(q, unit, sizeof(unit) - 1) != 0)
		return -1;
	return v > AOS_NV_REGS_MAX ? -1 : (long)v;
}

uint32_t aos_nv_regs_from_log(const char *log, size_t len, const char *kernel_name)
{
	if (!log || !kernel_name || !kernel_name[0])
		return 0;
	const char *nul = memchr(log, '\0', len);
	const char *end = nul ? nul : log + len;
	size_t name_len = strlen(kernel_name);
	if (strpbrk(kernel_name, "'\n\r"))
		return 0; /* not an identifier: it could match across the quote */
	int in_entry = 0; /* inside the section of kernel_name's entry */
	for (const char *p = log; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end;
		if (span_find(p, line_end, ": Compiling ")) {
			in_entry = entry_is(p, line_end, kernel_name, name_len);
		} else if (span_find(p, line_end, ": Compile time")) {
			if (in_entry)
				return 0; /* the entry ended without a count */
		} else if (in_entry) {
			const char *used = span_find(p, line_end, ": Used ");
			if (used) {
				long v = used_registers(p, line_end);
				return v > 0 ? (uint32_t)v : 0;
			}
		}
		p = eol ? eol + 1 : end;
	}
	return 0;
}
