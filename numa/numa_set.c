/* Set conversions and the Linux list text form ("0-3,8"). */
#include "numa_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

int numa_bitmap_to_set(hwloc_const_bitmap_t bm, size_t setsize, void *set)
{
	memset(set, 0, setsize);
	int n = 0;
	unsigned i;
	hwloc_bitmap_foreach_begin(i, bm)
	{
		if (i / 8 >= setsize) {
			errno = ERANGE;
			return -1;
		}
		((unsigned char *)set)[i / 8] |= (unsigned char)(1u << (i % 8));
		n++;
	}
	hwloc_bitmap_foreach_end();
	return n;
}

hwloc_bitmap_t numa_set_to_bitmap(size_t setsize, const void *set)
{
	hwloc_bitmap_t bm = hwloc_bitmap_alloc();
	if (!bm) {
		errno = ENOMEM;
		return NULL;
	}
	const unsigned char *p = set;
	for (size_t i = 0; i < setsize; i++)
		for (unsigned b = 0; b < 8; b++)
			if (p[i] & (1u << b))
				hwloc_bitmap_set(bm, (unsigned)(i * 8 + b));
	return bm;
}

int NUMA_set_format(char *buf, size_t buflen, size_t setsize, const void *set)
{
	const unsigned char *p = set;
	size_t nbits = setsize * 8, len = 0;
	if (buflen)
		buf[0] = 0;
	for (size_t i = 0; i < nbits;) {
		if (!(p[i / 8] & (1u << (i % 8)))) {
			i++;
			continue;
		}
		size_t j = i;
		while (j + 1 < nbits && (p[(j + 1) / 8] & (1u << ((j + 1) % 8))))
			j++;
		char item[48];
		int n = j == i ? snprintf(item, sizeof item, "%s%zu", len ? "," : "", i)
			       : snprintf(item, sizeof item, "%s%zu-%zu", len ? "," : "", i, j);
		if (len + (size_t)n < buflen)
			memcpy(buf + len, item, (size_t)n + 1);
		else if (buflen)
			buf[buflen - 1 < len ? buflen - 1 : len] = 0;
		len += (size_t)n;
		i = j + 1;
	}
	return (int)len;
}

int NUMA_set_parse(const char *list, size_t setsize, void *set)
{
	memset(set, 0, setsize);
	const char *s = list;
	while (isspace((unsigned char)*s))
		s++;
	while (*s && *s != '\n') {
		char *end;
		if (!isdigit((unsigned char)*s))
			goto bad;
		unsigned long a = strtoul(s, &end, 10), b = a;
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				goto bad;
			b = strtoul(s + 1, &end, 10);
			s = end;
			if (b < a)
				goto bad;
		}
		for (unsigned long i = a; i <= b; i++) {
			if (i / 8 >= setsize) {
				errno = ERANGE;
				return -1;
			}
			((unsigned char *)set)[i / 8] |= (unsigned char)(1u << (i % 8));
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n' && !isspace((unsigned char)*s))
			goto bad;
		while (isspace((unsigned char)*s) && *s != '\n')
			s++;
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
