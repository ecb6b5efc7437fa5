/*
 * describe.c - what policy can say about a request, and only what it
 * verified (describe.h).
 */
#include "crypto/crypto.h"
#include "ipc/text.h"
#include "policy/describe.h"
#include "policy/policy.h"
#include "policy/origin.h"
#include "policy/ruling.h"
#include "rules/scope.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void
describe_path(const struct policy *P, const struct identity *id,
    const struct bindings *b, char *out, size_t n)
{
	size_t o = (size_t)snprintf(out, n, "origin");
	char fp[96];

	for (size_t i = 0; i < b->n && o < n; i++) {
		struct slice k = { b->b[i].key, b->b[i].keylen };
		const char *name = dest_host_name(&id->dest, k, time(NULL));
		if (name == NULL && fingerprint(k, P->fp_hash, fp, sizeof(fp)) == 0)
			name = fp;
		o += (size_t)snprintf(out + o, n - o, " -> %s%s", name ? name : "?",
		    b->b[i].forwarding ? " (forwarding)" : "");
	}
}

const char *
describe_host_name(const struct policy *P, struct slice K)
{
	const char *name;
	time_t now = time(NULL);

	for (size_t i = 0; i < P->ids.n; i++)
		if ((name = dest_host_name(&P->ids.order[i]->dest, K, now)) != NULL)
			return name;
	return NULL;
}

size_t
describe_added(const struct policy *P, const struct identity *id, char *out,
    size_t n)
{
	char fp[96], name[128];
	const char *known;
	struct slice k;

	if (n > 0)
		out[0] = '\0';
	if (id->added_over == ORIGIN_UNKNOWN)
		return (size_t)snprintf(out, n, "This key was added through a "
		    "forwarded agent by a host keyward cannot name.");
	if (id->added_over != ORIGIN_FORWARDED || id->added_by == NULL)
		return 0;
	k = (struct slice){ id->added_by, id->added_by_len };
	if (fingerprint(k, P->fp_hash, fp, sizeof(fp)) != 0)
		snprintf(fp, sizeof(fp), "(unreadable)");
	/* the name came from an ssh-add -h the user typed; terminal-safe
	 * all the same, as every name in a prompt */
	if ((known = describe_host_name(P, k)) != NULL)
		text_term_str(name, sizeof(name), known);
	return (size_t)snprintf(out, n, "This key was added through the "
	    "forwarded agent by the host with key %s%s%s%s.", fp,
	    known != NULL ? " (" : "", known != NULL ? name : "",
	    known != NULL ? ")" : "");
}

/* s cut to max bytes, "..." its end, at a character's start (s is
 * terminal-safe UTF-8 already). */
static void
cut_line(char *s, size_t max)
{
	size_t k;

	if (strlen(s) <= max)
		return;
	k = max - 3;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	memcpy(s + k, "...", 4);
}

/* What the data is: a login (its user, and its host from path, the
 * bound path, when verified), an SSHSIG namespace, or other data. */
static size_t
describe_purpose(const struct purpose *pu, const char *unverified,
    const char *path, char *out, size_t n)
{
	char text[128];

	if (pu->kind == PURPOSE_LOGIN) {
		text_term(text, sizeof(text), pu->ua.user.p, pu->ua.user.len);
		if (unverified == NULL)
			return (size_t)snprintf(out, n, "\nLogin as user \"%s\" "
			    "to %s.", text, strrchr(path, '>') ? strrchr(path, '>') + 2 :
			    path);
		return (size_t)snprintf(out, n, "\nThe data claims a "
		    "login as user \"%s\", not verified: %s. Rules take it "
		    "as a login by an unknown user to an unknown host.", text,
		    unverified);
	}
	if (pu->kind == PURPOSE_SSHSIG) {
		text_term(text, sizeof(text), pu->ns.p, pu->ns.len);
		return (size_t)snprintf(out, n, "\nAn SSHSIG signature "
		    "(namespace \"%s\"), as ssh-keygen -Y sign makes.", text);
	}
	return (size_t)snprintf(out, n, "\nThe data to sign is not a login.");
}

/* Who asked: the caller, or the forwarding ssh that relays for a
 * program policy cannot name. */
static size_t
describe_asker(const struct policy *P, const struct conn *c, char *out,
    size_t n)
{
	char who[PROMPT_MAX_TEXT / 2];

	if (c != NULL) {
		/* One short line: the askpass dialog is as wide as its
		 * longest line (the log and the audit keep the whole); the
		 * socket, a fact the user chose, is never the part cut. */
		caller_describe(&c->caller, c->pid, who, sizeof(who));
		cut_line(who, PROMPT_LINE_MAX - 16);
		scope_append(P->rules, c->sock, who, sizeof(who));
	} else
		snprintf(who, sizeof(who), "(gone)");
	if (conn_forwarded(c))
		return (size_t)snprintf(out, n, "\nRelayed by %s,\n"
		    "for a program on the forwarded host, unnamed.", who);
	return (size_t)snprintf(out, n, "\nRequested by %s.", who);
}

size_t
describe_request(const struct policy *P, const struct identity *id,
    const struct conn *c, const struct purpose *pu, char *out, size_t n)
{
	static const struct bindings none;
	const struct bindings *b = c != NULL ? &c->bind : &none;
	const char *unverified = NULL;
	char path[1024];
	size_t o;

	o = (size_t)snprintf(out, n, "Key fingerprint %s.", id->fp);
	if (pu->kind == PURPOSE_LOGIN)
		unverified = purpose_unverified(pu, c != NULL ? b : NULL);
	describe_path(P, id, b, path, sizeof(path));
	/* Local tools (ssh-keygen -Y sign, git) never bind: said plainly,
	 * with the one other sender that does not (an ssh before 8.9
	 * forwarding the agent). A bind that FAILED is another matter:
	 * policy takes it as forwarded from an unknown host. */
	if (o < n && b->n == 0 && !b->attempted)
		o += (size_t)snprintf(out + o, n - o, "\nNo session-bind: usual "
		    "for local tools (ssh-keygen, git), or an old ssh.");
	else if (o < n && b->failed)
		o += (size_t)snprintf(out + o, n - o, "\nWARNING: a session-bind "
		    "FAILED; taken as forwarded from an unknown host.");
	if (o < n)
		o += describe_purpose(pu, unverified, path, out + o, n - o);
	if (o < n && b->n > 0)
		o += (size_t)snprintf(out + o, n - o, "\nPath: %s.%s", path,
		    b->b[b->n - 1].forwarding || b->n > 1 ?
		    "\nThe request comes through a forwarded agent." : "");
	if (o < n)
		o += describe_asker(P, c, out + o, n - o);
	return o;
}
