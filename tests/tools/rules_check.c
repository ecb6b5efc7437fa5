/*
 * rules_check.c - read a keyward(5) rules file and print its canonical
 * form (exit 0) or its error (exit 1), as keyward-ctl policy load will.
 * A test tool: 95-manpage.t runs it on every example of keyward(5).
 *
 *   rules_check FILE
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	static char text[RULES_MAX_FILE + 1];
	struct ruleset *rs;
	struct rules_err err;
	struct wb out;
	size_t len;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: rules_check FILE\n");
		return 2;
	}
	if ((f = fopen(argv[1], "r")) == NULL) {
		perror(argv[1]);
		return 2;
	}
	/* one byte more than the limit, so that the parser sees it */
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	if (rules_parse(argv[1], text, len, &rs, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	wb_init(&out);
	if (rules_format(rs, &out) != 0 ||
	    fwrite(out.p, 1, out.len, stdout) != out.len) {
		fprintf(stderr, "rules_check: cannot print\n");
		return 2;
	}
	wb_free(&out);
	rules_free(rs);
	return 0;
}
