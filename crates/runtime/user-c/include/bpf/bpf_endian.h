/* User-space target: <bpf/bpf_endian.h> on the host's byte order. */
#ifndef P4U_BPF_ENDIAN_H
#define P4U_BPF_ENDIAN_H

#define bpf_htons(x) __builtin_bswap16((__u16)(x))
#define bpf_ntohs(x) __builtin_bswap16((__u16)(x))
#define bpf_htonl(x) __builtin_bswap32((__u32)(x))
#define bpf_ntohl(x) __builtin_bswap32((__u32)(x))
#define bpf_cpu_to_be64(x) __builtin_bswap64((__u64)(x))
#define bpf_be64_to_cpu(x) __builtin_bswap64((__u64)(x))

#endif
