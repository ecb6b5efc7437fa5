/*
 * match.c - patterns and pattern lists (match.h). No libcrypto here:
 * the monitor links rules/.
 */
#include "rules/match.h"
#include "ipc/limits.h"
#include "ipc/log.h"

#include <stdlib.h>
#include <string.h>

int
wmatch_n(const char *s, const char *p, size_t plen)
{
	unsigned char small[2 * (WMATCH_MAX_STACK_PATTERN + 1)];
	unsigned char *cur, *next;
	size_t j;
	int ok;

	/* A set of pattern positions, advanced one subject byte at a time:
	 * O(|s|·|p|), no backtracking (the reference's 10.4 fix). Every
	 * pattern keyward matches is bounded below WMATCH_MAX_STACK_PATTERN,
	 * so no allocation can fail here; a longer one (an option's, or a
	 * caller's bug) is still matched, and out of memory ends the
	 * process rather than read as "no match", which would let a deny
	 * rule or a negated pattern allow. */
	if (plen <= WMATCH_MAX_STACK_PATTERN)
		cur = small;
	else if ((cur = calloc(2, plen + 1)) == NULL)
		fatal("out of memory matching a pattern");
	memset(cur, 0, 2 * (plen + 1));
	next = cur + plen + 1;
	cur[0] = 1;
	for (j = 0; j < plen && p[j] == '*'; j++)
		cur[j + 1] = 1;
	for (; *s != '\0'; s++) {
		memset(next, 0, plen + 1);
		for (j = 0; j < plen; j++) {
			if (!cur[j])
				continue;
			if (p[j] == '*')
				next[j] = 1;                    /* '*' eats this byte */
			else if (p[j] == '?' || p[j] == *s)
				next[j + 1] = 1;
		}
		/* a '*' may also match nothing */
		for (j = 0; j < plen; j++)
			if (next[j] && p[j] == '*')
				next[j + 1] = 1;
		memcpy(cur, next, plen + 1);
	}
	ok = cur[plen];
	if (cur != small)
		free(cur);
	return ok;
}

int
wmatch(const char *s, const char *p)
{
	return wmatch_n(s, p, strlen(p));
}

/* The list rule, one pattern at a time: -1 once a negated pattern
 * matched (the answer is no, whatever else matches), else *got set when
 * a positive one did. */
static int
list_step(const char *s, const char *p, size_t plen, int neg, int *got)
{
	if (!wmatch_n(s, p, plen))
		return 0;
	if (neg)
		return -1;
	*got = 1;
	return 0;
}

int
match_split(const char *s, char *const *pat, const uint8_t *neg, size_t n)
{
	int got = 0;

	for (size_t i = 0; i < n; i++)
		if (list_step(s, pat[i], strlen(pat[i]), neg[i], &got) != 0)
			return 0;
	return got;
}

int
match_list(const char *s, const char *list)
{
	int got = 0;

	while (*list != '\0') {
		size_t len = strcspn(list, ",");
		int neg = *list == '!';

		if (list_step(s, list + neg, len - (size_t)neg, neg, &got) != 0)
			return 0;
		list += len;
		if (*list == ',')
			list++;
	}
	return got;
}
