#!/usr/bin/env python3
"""UDP flow for scripts/demo.sh.

send HOST PORT COUNT: sends COUNT datagrams.
receive HOST PORT COUNT SRC_MAC DST_MAC TTL: captures the flow's frames on
eth0 with a packet socket and checks each one's Ethernet addresses and IPv4
TTL, and that COUNT datagrams arrive; exits non-zero otherwise.
"""
import os
import socket
import struct
import sys

ETH_P_IP = 0x0800


def send(host, port, count):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for n in range(count):
            sock.sendto(f"p4bpf demo {n}".encode(), (host, port))
    print(f"sent {count} datagrams to {host}:{port}")


def receive(host, port, count, src_mac, dst_mac, ttl):
    capture = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    capture.bind(("eth0", 0))
    capture.settimeout(5)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((host, port))
    # Tell the demo we listen, so the sender never starts before us.
    ready = os.environ.get("DEMO_UDP_READY")
    if ready:
        open(ready, "w").close()
    seen = 0
    while seen < count:
        frame = capture.recv(2048)
        if len(frame) < 42 or frame[23] != socket.IPPROTO_UDP:
            continue
        if struct.unpack("!H", frame[36:38])[0] != port:
            continue
        got_dst, got_src = frame[0:6].hex(":"), frame[6:12].hex(":")
        got_ttl = frame[22]
        if (got_src, got_dst, got_ttl) != (src_mac, dst_mac, ttl):
            sys.exit(f"frame {seen}: src {got_src} dst {got_dst} ttl {got_ttl}, "
                     f"expected src {src_mac} dst {dst_mac} ttl {ttl}")
        seen += 1
    udp.settimeout(1)
    datagrams = [udp.recv(2048) for _ in range(count)]
    print(f"received {len(datagrams)} datagrams: src MAC {src_mac}, dst MAC {dst_mac}, TTL {ttl}")


def main(args):
    if args[:1] == ["send"] and len(args) == 4:
        send(args[1], int(args[2]), int(args[3]))
    elif args[:1] == ["receive"] and len(args) == 7:
        receive(args[1], int(args[2]), int(args[3]), args[4], args[5], int(args[6]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
