import Testing
@testable import MediaCacheKit

/// HMAC-SHA-256 signs `serve`'s local URLs: RFC 4231's vectors, a short key and one
/// longer than a block (hashed first).
@Suite("HMAC") struct HMACTests {
    @Test(arguments: [
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func matchesRFC4231(key: [UInt8], message: [UInt8], expected: String) {
        #expect(HMAC.sha256Hex(key: key, message: message) == expected)
    }
}
