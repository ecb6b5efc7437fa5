/*
 * print.c - the text and JSON listings. Type names and sizes are the ones
 * ssh-add -l prints (sshkey_type, sshkey_size). Every string comes from
 * the agent, and through it from whoever added the key: the text form is
 * ipc/text.h's terminal form, so a comment cannot drive the terminal, and
 * the JSON form is its JSON string, so the output always parses.
 */
#include "ctl/print.h"
#include "wire/listing.h"
#include "ipc/limits.h"
#include "ipc/text.h"

#include <inttypes.h>
#include <stdlib.h>

static const struct {
	enum key_kind kind;
	const char *type;
	unsigned bits;                  /* 0: the RSA modulus size */
} kinds[] = {
	{ KEY_ED25519, "ED25519", 256 },
	{ KEY_ECDSA_P256, "ECDSA", 256 },
	{ KEY_ECDSA_P384, "ECDSA", 384 },
	{ KEY_ECDSA_P521, "ECDSA", 521 },
	{ KEY_RSA, "RSA", 0 },
	{ KEY_SK_ECDSA_P256, "ECDSA-SK", 256 },
	{ KEY_SK_ED25519, "ED25519-SK", 256 },
};

static void
key_type(const struct pubkey *k, const char **type, unsigned *bits)
{
	*type = "UNKNOWN";
	*bits = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == k->kind) {
			*type = kinds[i].type;
			*bits = kinds[i].bits != 0 ? kinds[i].bits : k->rsa_bits;
		}
}

/* ------------------------------------------------------------ text */

static void
text_str(FILE *f, struct slice s)
{
	char t[TEXT_TERM_MAX];

	fputs(text_term(t, sizeof(t), s.p, s.len), f);
}

static void
text_keys(FILE *f, const struct listing_hop *h)
{
	if (h->nkeys == 0) {
		/* the origin has no keys; any other hop without one never matches */
		if (h->host.len != 0)
			fputs(" [no keys]", f);
		return;
	}
	fputs(" [", f);
	for (size_t i = 0; i < h->nkeys; i++) {
		fputs(i > 0 ? ", " : "", f);
		fputs(h->keys[i].is_ca ? "CA " : "", f);
		text_str(f, h->keys[i].fp);
	}
	fputc(']', f);
}

static void
text_hop(FILE *f, const struct listing_hop *h, const char *none)
{
	if (h->host.len == 0)
		fputs(none, f);
	else
		text_str(f, h->host);
	text_keys(f, h);
}

/* who added it: a forwarded host's key is not the user's own */
static void
text_added_by(FILE *f, const struct listing_id *id)
{
	fputs("    added by: ", f);
	if (id->added_over == LISTING_ADDED_FORWARDED) {
		fputs("forwarded host ", f);
		text_str(f, id->added_by);
		if (id->added_by_name.len > 0) {
			fputs(" (", f);
			text_str(f, id->added_by_name);
			fputc(')', f);
		}
	} else if (id->added_over == LISTING_ADDED_UNKNOWN)
		fputs("a forwarded host keyward cannot name", f);
	else
		fputs("local", f);
	fputc('\n', f);
}

/* Its destination constraint, a hop a line. */
static void
text_rules(FILE *f, const struct listing_id *id)
{
	if (id->nrules == 0)
		fputs("    destination: none (usable everywhere)\n", f);
	for (size_t i = 0; i < id->nrules; i++) {
		const struct listing_rule *r = &id->rules[i];
		fputs("    hop: ", f);
		text_hop(f, &r->from, "origin");
		fputs(" -> ", f);
		text_hop(f, &r->to, "?");
		fputs(" user ", f);
		if (r->to.user.len == 0)
			fputs("any", f);
		else
			text_str(f, r->to.user);
		fputc('\n', f);
	}
}

static void
text_id(FILE *f, const struct listing_id *id)
{
	const char *type;
	unsigned bits;

	key_type(&id->pub, &type, &bits);
	fprintf(f, "%u ", bits);
	text_str(f, id->fp);
	fputc(' ', f);
	if (id->comment.len == 0)
		fputs("no comment", f);       /* as ssh-add -l says it */
	else
		text_str(f, id->comment);
	fprintf(f, " (%s%s)\n", type, id->pub.is_cert ? "-CERT" : "");
	if (key_is_sk(id->pub.kind)) {
		/* whoever added the key chose it: terminal form */
		fputs("    application: ", f);
		text_str(f, id->pub.sk_app);
		fputc('\n', f);
	}
	if (id->provider.len > 0) {
		fputs("    provider: ", f);
		text_str(f, id->provider);
		fputc('\n', f);
	}
	text_added_by(f, id);
	if (id->seconds_left == LISTING_NO_LIFETIME)
		fputs("    lifetime: none\n", f);
	else
		fprintf(f, "    lifetime: %" PRIu32 " s left\n", id->seconds_left);
	fprintf(f, "    confirm: %s\n", id->confirm ? "yes" : "no");
	text_rules(f, id);
}

void
print_text(FILE *f, const struct listing *l)
{
	if (l->n == 0)
		fputs("The agent has no identities.\n", f);
	for (size_t i = 0; i < l->n; i++)
		text_id(f, &l->ids[i]);
}

/* ------------------------------------------------------------ JSON */

static void
json_str(FILE *f, struct slice s)
{
	struct wb w;

	wb_init(&w);
	text_json(&w, s.p, s.len);
	if (w.err) {
		/* Out of memory: a listing with a string left out would lie. */
		fputs("keyward-ctl: out of memory\n", stderr);
		exit(255);
	}
	fwrite(w.p, 1, w.len, f);
	wb_free(&w);
}

/* An empty slice is null: the origin's host, any user. */
static void
json_str_or_null(FILE *f, struct slice s)
{
	if (s.len == 0)
		fputs("null", f);
	else
		json_str(f, s);
}

static void
json_hop(FILE *f, const struct listing_hop *h, int with_user)
{
	fputs("{\"host\":", f);
	json_str_or_null(f, h->host);
	if (with_user) {
		fputs(",\"user\":", f);
		json_str_or_null(f, h->user);
	}
	fputs(",\"keys\":[", f);
	for (size_t i = 0; i < h->nkeys; i++) {
		fputs(i > 0 ? ",{\"fingerprint\":" : "{\"fingerprint\":", f);
		json_str(f, h->keys[i].fp);
		fprintf(f, ",\"ca\":%s}", h->keys[i].is_ca ? "true" : "false");
	}
	fputs("]}", f);
}

static void
json_id(FILE *f, const struct listing_id *id)
{
	const char *type;
	unsigned bits;

	key_type(&id->pub, &type, &bits);
	fprintf(f, "{\"bits\":%u,\"type\":\"%s%s\",\"fingerprint\":", bits, type,
	    id->pub.is_cert ? "-CERT" : "");
	json_str(f, id->fp);
	fputs(",\"comment\":", f);
	json_str(f, id->comment);
	if (key_is_sk(id->pub.kind)) {
		fputs(",\"application\":", f);
		json_str(f, id->pub.sk_app);
	}
	if (id->provider.len > 0) {
		fputs(",\"provider\":", f);
		json_str(f, id->provider);
	}
	fprintf(f, ",\"added_over\":\"%s\",\"added_by\":",
	    id->added_over == LISTING_ADDED_FORWARDED ? "forwarded" :
	    id->added_over == LISTING_ADDED_UNKNOWN ? "unknown" : "local");
	json_str_or_null(f, id->added_by);
	fputs(",\"added_by_name\":", f);
	json_str_or_null(f, id->added_by_name);
	fputs(",\"lifetime_left\":", f);
	if (id->seconds_left == LISTING_NO_LIFETIME)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu32, id->seconds_left);
	fprintf(f, ",\"confirm\":%s,\"destinations\":[", id->confirm ? "true" : "false");
	for (size_t i = 0; i < id->nrules; i++) {
		fputs(i > 0 ? ",{\"from\":" : "{\"from\":", f);
		json_hop(f, &id->rules[i].from, 0);
		fputs(",\"to\":", f);
		json_hop(f, &id->rules[i].to, 1);
		fputc('}', f);
	}
	fputs("]}", f);
}

void
print_json(FILE *f, const struct listing *l)
{
	fputc('[', f);
	for (size_t i = 0; i < l->n; i++) {
		fputs(i > 0 ? ",\n" : "\n", f);
		json_id(f, &l->ids[i]);
	}
	fputs(l->n > 0 ? "\n]\n" : "]\n", f);
}
