// The kernel's floor for filling a table: 100K IPv4 /24 prefixes (the
// entries rates.py loads) written into a BPF_MAP_TYPE_LPM_TRIE, or the
// same keys into a BPF_MAP_TYPE_HASH, with nothing of p4bpf in the way.
// It says how fast `p4bpf table load` could be if user space cost nothing.
//
//   cc -O2 -o /tmp/lpm_floor bench/p4runtime/lpm_floor.c -lbpf -lpthread
//   sudo /tmp/lpm_floor lpm|hash each|batch sorted|random [THREADS]
//
// each: one BPF_MAP_UPDATE_ELEM with BPF_NOEXIST a key (how p4bpf fills
// a table that already holds many entries); batch: BPF_MAP_UPDATE_BATCH,
// 4096 keys a call (how it fills an empty or small one), the keys split
// into THREADS (default 1) runs written at once, one a thread (p4bpf
// writes a large batch as two halves). Prints wall time and this
// process's CPU time (user + system: the steadier figure on a shared
// machine).
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <pthread.h>
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

// One thread's run of records: [from, to).
struct run {
	int fd, from, to, failed;
	struct prefix *keys;
	unsigned int *values;
	pthread_t thread;
};

static void *write_run(void *argument)
{
	struct run *run = argument;
	for (int n = run->from; n < run->to; n += CHUNK) {
		unsigned int count = run->to - n < CHUNK ? run->to - n : CHUNK;
		if (bpf_map_update_batch(run->fd, &run->keys[n], &run->values[n], &count, NULL))
			run->failed = 1;
	}
	return NULL;
}

static int fill(int fd, struct prefix *keys, unsigned int *values, int batch, int threads)
{
	if (!batch) {
		for (int n = 0; n < ENTRIES; n++)
			if (bpf_map_update_elem(fd, &keys[n], &values[n], BPF_NOEXIST))
				return -1;
		return 0;
	}
	struct run runs[8];
	for (int t = 0; t < threads; t++) {
		runs[t] = (struct run){ fd, ENTRIES / threads * t,
					t == threads - 1 ? ENTRIES : ENTRIES / threads * (t + 1), 0,
					keys, values };
		if (t > 0 && pthread_create(&runs[t].thread, NULL, write_run, &runs[t]))
			return -1;
	}
	write_run(&runs[0]);
	int failed = runs[0].failed;
	for (int t = 1; t < threads; t++) {
		pthread_join(runs[t].thread, NULL);
		failed |= runs[t].failed;
	}
	return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	int threads = argc == 5 ? atoi(argv[4]) : 1;
	if (argc < 4 || argc > 5 || threads < 1 || threads > 8) {
		fprintf(stderr, "usage: %s lpm|hash each|batch sorted|random [THREADS (1-8)]\n",
			argv[0]);
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
	if (fill(fd, keys, values, batch, threads)) {
		perror("map update");
		return 1;
	}
	wall = seconds(CLOCK_MONOTONIC) - wall;
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	printf("%s %s %s, %d thread(s): %d entries, wall %.0f ms (%.0fK/s), cpu %.0f ms (%.0fK/s)\n",
	       argv[1], argv[2], argv[3], threads, ENTRIES, wall * 1e3, ENTRIES / wall / 1e3,
	       cpu * 1e3, ENTRIES / cpu / 1e3);
	return 0;
}
