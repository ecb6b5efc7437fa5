/*
 * secmem.c - see secmem.h.
 */
#include "ipc/secmem.h"
#include "ipc/log.h"

#include <errno.h>
#include <sys/mman.h>

void *
secret_map(size_t len, const char *what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int r;

	if (p == MAP_FAILED)
		fatal("mmap: %m");
	if (madvise(p, len, MADV_DONTDUMP) != 0)
		fatal("madvise(MADV_DONTDUMP): %m");
	/* Locked as each page is first touched, not all at once: the
	 * keyholder's receive buffer is sized for the largest ADD but most
	 * messages fill a page or two, and a page that never held a byte
	 * holds no secret. A touched page is locked before it can hold one,
	 * so nothing written here reaches swap either way; the whole range
	 * counts against RLIMIT_MEMLOCK now, as mlock's does. Kernels
	 * before 4.4 (no mlock2, or no MLOCK_ONFAULT): every page now. */
	r = mlock2(p, len, MLOCK_ONFAULT);
	if (r != 0 && (errno == ENOSYS || errno == EINVAL))
		r = mlock(p, len);
	if (r != 0)
		log_error("warning: cannot lock the %s in memory (%m)", what);
	return p;
}
