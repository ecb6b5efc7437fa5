/*
 * match.h - the one pattern matcher of keyward: OpenSSH's patterns ('*'
 * any run, '?' one byte, anything else itself, the whole string) and its
 * pattern lists (comma-separated, a "!"-negated pattern's match excludes,
 * some positive pattern must match). Used by the rules language (rules.c),
 * destination constraints (doc/protocol.md §8.1: a hop's user, a host certificate's
 * principals; policy/hop.c) and policy's option lists (-P providers,
 * websafe-allow).
 *
 * Fail closed: no answer is ever "no match" for want of memory. A pattern
 * up to WMATCH_MAX_STACK_PATTERN bytes (every one keyward holds) is
 * matched without allocating; a longer one allocates, and out of memory
 * ends the process. Work is O(|s|·|p|), no backtracking.
 */
#ifndef KEYWARD_MATCH_H
#define KEYWARD_MATCH_H

#include <stddef.h>
#include <stdint.h>

/* doc/protocol.md §8.1: 1 if s matches the pattern p, else 0. */
int wmatch(const char *s, const char *p);
/* The same, the pattern being the plen bytes at p (no NUL needed). */
int wmatch_n(const char *s, const char *p, size_t plen);

/* A pattern list already split: pat[i] without its '!', neg[i] 1 where
 * it had one. 1 if s matches the list; n 0 (no list) matches nothing. */
int match_split(const char *s, char *const *pat, const uint8_t *neg,
    size_t n);
/* A pattern list as written, "a,!b,c*": 1 if s matches it. An empty
 * list matches nothing; an empty pattern ("a,,b") only the empty string;
 * one trailing comma ends the list. */
int match_list(const char *s, const char *list);

#endif
