import TestOrigin

extension TestOrigin {
    /// Serves `size` seeded random bytes at `path`, each response paced at
    /// `bytesPerSecond` if given; returns the URL and the bytes.
    func serveRandom(_ path: String, size: Int, seed: UInt64, bytesPerSecond: Int? = nil) -> (url: String, bytes: [UInt8]) {
        var faults = Faults()
        faults.bytesPerSecond = bytesPerSecond
        let bytes = TestBytes.make(size, seed: seed)
        serve(path, Resource(bytes, faults: faults))
        return (url(path), bytes)
    }
}
