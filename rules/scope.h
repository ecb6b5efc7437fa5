/*
 * scope.h - what the sockets of keyward(5) "socket" declarations mean
 * in policy. Each connection came in on one socket: 0 the main one
 * ("main"), i the i-th declared one. The main socket is as before; a
 * named one is scoped:
 *   - it lists and signs with a key only where a rule lets it: a rule
 *     whose key and socket clauses match and whose action is allow or
 *     confirm, reached before a deny that surely matches, lists the key
 *     (its other clauses are judged at signing); where no rule matches a
 *     request the answer is deny, not allow;
 *   - a key added through a socket is in its scope: where no rule
 *     decides, it is listed and signs there (as every key on the main
 *     one), and the socket's REMOVE and REMOVE_ALL reach only the keys
 *     it lists;
 *   - management requests (add, remove, lock, unlock, keyward's own
 *     extensions) are refused there unless it was declared "manage".
 * Pure functions of the rules and the facts given.
 */
#ifndef KEYWARD_SCOPE_H
#define KEYWARD_SCOPE_H

#include "rules/rules.h"

#include <stddef.h>
#include <stdint.h>

/* The socket's name: "main" for 0, "?" for one the rules do not declare. */
const char *scope_name(const struct ruleset *rs, uint32_t sock);
/* 1 if management requests are served on sock. */
int scope_may_manage(const struct ruleset *rs, uint32_t sock);
/* 1 if the key (fingerprint, comment; added through socket added_on)
 * is listed on sock. */
int scope_may_list(const struct ruleset *rs, uint32_t sock,
    const char *fingerprint, const char *comment, uint32_t added_on);
/* Append " through the NAME socket" to out when sock is a named one. */
void scope_append(const struct ruleset *rs, uint32_t sock, char *out,
    size_t n);
/* What a sign request no rule matched gets on sock. */
enum rule_action scope_default(uint32_t sock, uint32_t added_on);

#endif
