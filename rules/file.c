/*
 * file.c - reading a rules file whole (rules.h, rules_read_file): the
 * one read keyward -O policy= and keyward-ctl policy load share.
 */
#include "ipc/limits.h"
#include "ipc/text.h"
#include "rules/rules.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
rules_read_file(const char *path, char **text, size_t *len, char *msg,
    size_t msglen)
{
	char shown[TEXT_TERM_MAX];
	size_t n = 0;
	ssize_t r;
	char *buf;
	int fd;

	text_term_str(shown, sizeof(shown), path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		snprintf(msg, msglen,
		    "cannot open the policy %s: %s", shown, strerror(errno));
		return -1;
	}
	/* One byte more than a file may have, to see one that has it. */
	if ((buf = malloc(RULES_MAX_FILE + 1)) == NULL) {
		snprintf(msg, msglen, "out of memory");
		close(fd);
		return -1;
	}
	while (n <= RULES_MAX_FILE &&
	    (r = read(fd, buf + n, RULES_MAX_FILE + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(msg, msglen,
			    "cannot read the policy %s: %s", shown,
			    strerror(errno));
			close(fd);
			free(buf);
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	if (n > RULES_MAX_FILE) {
		snprintf(msg, msglen, "%s: larger than %d bytes",
		    shown, RULES_MAX_FILE);
		free(buf);
		return -1;
	}
	*text = buf;
	*len = n;
	return 0;
}
