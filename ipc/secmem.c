/*
 * secmem.c - see secmem.h.
 */
#include "ipc/secmem.h"
#include "ipc/log.h"

#include <sys/mman.h>

void *
secret_map(size_t len, const char *what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fatal("mmap: %m");
	if (madvise(p, len, MADV_DONTDUMP) != 0)
		fatal("madvise(MADV_DONTDUMP): %m");
	if (mlock(p, len) != 0)
		log_error("warning: cannot lock the %s in memory (%m)", what);
	return p;
}
