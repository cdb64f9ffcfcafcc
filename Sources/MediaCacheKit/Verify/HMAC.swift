/// HMAC-SHA-256 (RFC 2104) over the streaming digest: what signs local URLs.
enum HMAC {
    static func sha256Hex(key: [UInt8], message: [UInt8]) -> String {
        let blockSize = 64
        var block = key.count > blockSize ? digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = Digest(.sha256)
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let outer = Digest(.sha256)
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalizeHex()
    }

    private static func digest(_ bytes: [UInt8]) -> [UInt8] {
        let digest = Digest(.sha256)
        digest.update(bytes)
        return digest.finalize()
    }
}
