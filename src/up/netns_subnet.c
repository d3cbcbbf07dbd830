/*
 * netns_subnet: choosing the private /24 of a new --netns cluster, one that
 * no address or route of this machine touches (other clusters' bridges
 * included). The search starts where DIR's hash points, so that clusters
 * made side by side rarely try the same one first.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "up/netns.h"

#define SUBNET_A 10
#define SUBNET_B 213
#define MASK24 0xffffff00u

static bool overlaps(uint32_t a, uint32_t amask, uint32_t b, uint32_t bmask)
{
    uint32_t m = amask & bmask;
    return (a & m) == (b & m);
}

static bool addr_touches(uint32_t net)
{
    struct ifaddrs *ifs, *i;
    bool hit = false;
    if (getifaddrs(&ifs) < 0)
        return false;
    for (i = ifs; i && !hit; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask)
            continue;
        uint32_t a = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
        uint32_t m = ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr);
        hit = overlaps(a, m, net, MASK24);
    }
    freeifaddrs(ifs);
    return hit;
}

/* /proc/net/route prints each address as the hex of its network-order
 * word; the default route (mask 0) is no use of a subnet. */
static bool route_touches(uint32_t net)
{
    FILE *f = fopen("/proc/net/route", "re");
    char line[512];
    bool hit = false;
    if (!f)
        return false;
    while (!hit && fgets(line, sizeof line, f)) {
        unsigned int dst, mask;
        if (sscanf(line, "%*s %x %*x %*x %*d %*d %*d %x", &dst, &mask) != 2 || mask == 0)
            continue;
        hit = overlaps(ntohl(dst), ntohl(mask), net, MASK24);
    }
    fclose(f);
    return hit;
}

int netns_pick_subnet(const char *dir, char *base, size_t n)
{
    uint32_t start = netns_dir_hash(dir) & 0xff;
    for (uint32_t k = 0; k < 256; k++) {
        uint32_t c = (start + k) & 0xff;
        uint32_t net = (uint32_t)SUBNET_A << 24 | (uint32_t)SUBNET_B << 16 | c << 8;
        if (addr_touches(net) || route_touches(net))
            continue;
        snprintf(base, n, "%d.%d.%u", SUBNET_A, SUBNET_B, c);
        return 0;
    }
    fprintf(stderr, "herd: error: every %d.%d.X.0/24 is in use here\n", SUBNET_A, SUBNET_B);
    return -1;
}
