// The kernel's floor for filling a table: 100K IPv4 /24 prefixes (the
// entries rates.py loads) written into a BPF_MAP_TYPE_LPM_TRIE, or the
// same keys into a BPF_MAP_TYPE_HASH, with nothing of p4bpf in the way.
// It says how fast `p4bpf table load` could be if user space cost nothing.
//
//   cc -O2 -o /tmp/lpm_floor bench/p4runtime/lpm_floor.c -lbpf
//   sudo /tmp/lpm_floor lpm|hash each|batch sorted|random
//
// each: one BPF_MAP_UPDATE_ELEM with BPF_NOEXIST a key (how p4bpf fills
// a table that already holds many entries); batch: BPF_MAP_UPDATE_BATCH,
// 4096 keys a call (how it fills an empty or small one). Prints wall time
// and this process's CPU time (user + system: the steadier figure on a
// shared machine).
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENTRIES 100000
#define CAPACITY 131072
#define CHUNK 4096

struct prefix {
	unsigned int bits;
	unsigned char address[4];
};

static double seconds(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

// 10.0.0.0/24, 10.0.1.0/24, ...: rates.py's keys, in ascending order.
static void make_prefixes(struct prefix *keys, unsigned int *values)
{
	for (unsigned int n = 0; n < ENTRIES; n++) {
		keys[n] = (struct prefix){ 24, { 10 + (n >> 16), n >> 8, n, 0 } };
		values[n] = n % 64;
	}
}

static void shuffle(struct prefix *keys)
{
	srand(1);
	for (int i = ENTRIES - 1; i > 0; i--) {
		int j = rand() % (i + 1);
		struct prefix t = keys[i];
		keys[i] = keys[j];
		keys[j] = t;
	}
}

static int fill(int fd, struct prefix *keys, unsigned int *values, int batch)
{
	if (!batch) {
		for (int n = 0; n < ENTRIES; n++)
			if (bpf_map_update_elem(fd, &keys[n], &values[n], BPF_NOEXIST))
				return -1;
		return 0;
	}
	for (int n = 0; n < ENTRIES; n += CHUNK) {
		unsigned int count = ENTRIES - n < CHUNK ? ENTRIES - n : CHUNK;
		if (bpf_map_update_batch(fd, &keys[n], &values[n], &count, NULL))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s lpm|hash each|batch sorted|random\n", argv[0]);
		return 2;
	}
	int trie = !strcmp(argv[1], "lpm");
	int batch = !strcmp(argv[2], "batch");
	static struct prefix keys[ENTRIES];
	static unsigned int values[ENTRIES];
	make_prefixes(keys, values);
	if (!strcmp(argv[3], "random"))
		shuffle(keys);
	// An lpm trie must be created without preallocation; p4bpf's hash
	// tables are preallocated.
	LIBBPF_OPTS(bpf_map_create_opts, options, .map_flags = trie ? BPF_F_NO_PREALLOC : 0);
	int fd = bpf_map_create(trie ? BPF_MAP_TYPE_LPM_TRIE : BPF_MAP_TYPE_HASH, "lpm_floor",
				sizeof(struct prefix), sizeof(unsigned int), CAPACITY, &options);
	if (fd < 0) {
		perror("bpf_map_create");
		return 1;
	}
	double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
	if (fill(fd, keys, values, batch)) {
		perror("map update");
		return 1;
	}
	wall = seconds(CLOCK_MONOTONIC) - wall;
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	printf("%s %s %s: %d entries, wall %.0f ms (%.0fK/s), cpu %.0f ms (%.0fK/s)\n", argv[1],
	       argv[2], argv[3], ENTRIES, wall * 1e3, ENTRIES / wall / 1e3, cpu * 1e3,
	       ENTRIES / cpu / 1e3);
	return 0;
}
