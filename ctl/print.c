/*
 * print.c - the text and JSON listings. Type names and sizes are the ones
 * ssh-add -l prints (sshkey_type, sshkey_size). Strings come from the
 * agent: the text form shows control characters (C0, DEL, C1) and bytes
 * that are not UTF-8 as \xNN, so that a comment cannot drive the
 * terminal; the JSON form escapes per RFC 8259 (and C1 as \u00XX too)
 * and shows bytes that are not UTF-8 as U+FFFD, so the output always
 * parses.
 */
#include "ctl/print.h"
#include "ipc/msg.h"

#include <inttypes.h>

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

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t
utf8_len(const uint8_t *p, size_t n)
{
	uint8_t lo = 0x80, hi = 0xbf;
	size_t len;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* Is the n-byte sequence at p a C1 control character (U+0080-U+009F)? */
static int
is_c1(const uint8_t *p, size_t n)
{
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

/* ------------------------------------------------------------ text */

static void
text_str(FILE *f, struct slice s)
{
	for (size_t i = 0; i < s.len;) {
		uint8_t c = s.p[i];
		size_t n = c < 0x80 ? 1 : utf8_len(s.p + i, s.len - i);
		int shown = n > 0 && c >= 0x20 && c != 0x7f && !is_c1(s.p + i, n);
		if (n == 0)
			n = 1;          /* not UTF-8: this byte alone, escaped */
		if (shown)
			fwrite(s.p + i, 1, n, f);
		else
			for (size_t k = 0; k < n; k++)
				fprintf(f, "\\x%02x", s.p[i + k]);
		i += n;
	}
}

static void
text_keys(FILE *f, const struct inspect_hop *h)
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
text_hop(FILE *f, const struct inspect_hop *h, const char *none)
{
	if (h->host.len == 0)
		fputs(none, f);
	else
		text_str(f, h->host);
	text_keys(f, h);
}

static void
text_id(FILE *f, const struct inspect_id *id)
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

	if (id->seconds_left == INSPECT_NO_LIFETIME)
		fputs("    lifetime: none\n", f);
	else
		fprintf(f, "    lifetime: %" PRIu32 " s left\n", id->seconds_left);
	fprintf(f, "    confirm: %s\n", id->confirm ? "yes" : "no");
	if (id->nrules == 0)
		fputs("    destination: none (usable everywhere)\n", f);
	for (size_t i = 0; i < id->nrules; i++) {
		const struct inspect_rule *r = &id->rules[i];
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

void
print_text(FILE *f, const struct inspect_list *l)
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
	fputc('"', f);
	for (size_t i = 0; i < s.len;) {
		uint8_t c = s.p[i];
		size_t n = c < 0x80 ? 1 : utf8_len(s.p + i, s.len - i);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (n == 0) {
			fputs("\\ufffd", f);
			n = 1;
		} else if (is_c1(s.p + i, n))
			fprintf(f, "\\u%04x", s.p[i + 1]);
		else
			fwrite(s.p + i, 1, n, f);
		i += n;
	}
	fputc('"', f);
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
json_hop(FILE *f, const struct inspect_hop *h, int with_user)
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
json_id(FILE *f, const struct inspect_id *id)
{
	const char *type;
	unsigned bits;

	key_type(&id->pub, &type, &bits);
	fprintf(f, "{\"bits\":%u,\"type\":\"%s%s\",\"fingerprint\":", bits, type,
	    id->pub.is_cert ? "-CERT" : "");
	json_str(f, id->fp);
	fputs(",\"comment\":", f);
	json_str(f, id->comment);
	fputs(",\"lifetime_left\":", f);
	if (id->seconds_left == INSPECT_NO_LIFETIME)
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
print_json(FILE *f, const struct inspect_list *l)
{
	fputc('[', f);
	for (size_t i = 0; i < l->n; i++) {
		fputs(i > 0 ? ",\n" : "\n", f);
		json_id(f, &l->ids[i]);
	}
	fputs(l->n > 0 ? "\n]\n" : "]\n", f);
}
