import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export class AddressSyntaxError extends Error {}

/**
 * Parses one address or CIDR block as an operator writes it (`203.0.113.0/24`, `10.1.2.3`,
 * `2001:db8::/32`, `::1`) into its canonical form: the network address and prefix, so that
 * `10.1.2.3/8` is stored as `10.0.0.0/8`. IPv4-mapped IPv6 blocks (`::ffff:10.0.0.0/104`) become
 * IPv4 blocks, because client addresses are unmapped the same way before matching.
 */
export function canonicalCidr(text: string): string {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash === -1 ? undefined : trimmed.slice(slash + 1);
  let address: Address;
  // Only the usual notations: ipaddr.js also takes `10.1`, `0x0a.0.0.1` and plain integers as
  // IPv4, which in an allow-list are far more likely typos than intent.
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) address = ipaddr.IPv4.parse(addressText);
  else if (ipaddr.IPv6.isValid(addressText) && !addressText.includes('%')) address = ipaddr.IPv6.parse(addressText);
  else throw new AddressSyntaxError(`not an IPv4 or IPv6 address or CIDR block: '${text}'`);
  const bits = address.kind() === 'ipv4' ? 32 : 128;
  let prefix = bits;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
      throw new AddressSyntaxError(`prefix length of '${text}' must be 0 to ${bits}`);
    }
    prefix = Number(prefixText);
  }
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && prefix >= 96) {
    address = address.toIPv4Address();
    prefix -= 96;
  }
  return `${networkAddress(address, prefix).toString()}/${prefix}`;
}

/** Parses a comma-separated list (the `--ips` option); an empty list means "from anywhere". */
export function canonicalCidrList(text: string): string[] {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return [...new Set(items.map(canonicalCidr))];
}

function networkAddress(address: Address, prefix: number): Address {
  const bytes = address.toByteArray();
  bytes.forEach((byte, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    bytes[i] = byte & (0xff << (8 - keep)) & 0xff;
  });
  return ipaddr.fromByteArray(bytes);
}

/** The client's address as matched: IPv4-mapped IPv6 (`::ffff:1.2.3.4`, from dual-stack sockets) unmapped. */
export function parseClientAddress(ip: string): Address | undefined {
  // A scope id (`fe80::1%eth0`) names the interface, not the peer; it plays no part in matching.
  const bare = ip.includes('%') ? ip.slice(0, ip.indexOf('%')) : ip;
  if (!ipaddr.isValid(bare)) return undefined;
  try {
    return ipaddr.process(bare);
  } catch {
    return undefined;
  }
}

/** An allow-list of CIDR blocks, parsed once (tokens are cached with it) and matched per request. */
export class AddressRule {
  private readonly blocks: readonly [Address, number][];

  /** `cidrs` are canonical blocks as stored (see canonicalCidr). */
  constructor(readonly cidrs: readonly string[]) {
    this.blocks = cidrs.map((c) => ipaddr.parseCIDR(c));
  }

  /** True when the client address lies in one of the blocks; an unparsable address never does. */
  allows(clientIp: string): boolean {
    const address = parseClientAddress(clientIp);
    if (!address) return false;
    return this.blocks.some(([network, prefix]) => network.kind() === address.kind() && address.match(network, prefix));
  }
}
