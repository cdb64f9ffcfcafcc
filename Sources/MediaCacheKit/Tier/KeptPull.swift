/// What an earlier pull of the same pack left that passes its checks: every member before
/// `firstMissing` whole, and maybe the first bytes of that one. Pulls write in the pack's
/// order, so nothing after it is looked at.
struct KeptPull {
    struct Prefix {
        let bytes: Int64
        /// The SHA-256 so far, of those bytes.
        let digest: Digest
    }

    /// The index in `title.json` of the first member to fetch.
    let firstMissing: Int
    /// Where that member starts in the pack.
    let offset: Int64
    let prefix: Prefix?

    /// Hashes what `staged` holds, member by member in order, each whole one taken into
    /// `assembly`, up to the first that is missing, short or wrong.
    static func scan(_ staged: StagedTitle, checking assembly: inout TitleAssembly) throws -> KeptPull {
        var offset = Int64(assembly.manifestBytes.count)
        for (index, member) in assembly.manifest.members.enumerated() {
            func missing(keeping prefix: Prefix? = nil) -> KeptPull {
                KeptPull(firstMissing: index, offset: offset, prefix: prefix)
            }
            guard let file = staged.existing(member.path), let size = try? file.size(), size > 0 || member.size == 0 else {
                return missing()
            }
            let digest = Digest(.sha256)
            guard (try? file.forEachBlock(length: min(size, member.size), { digest.update($0) })) != nil else {
                return missing()
            }
            if size < member.size { return missing(keeping: Prefix(bytes: size, digest: digest)) }
            guard size == member.size, digest.finalizeHex() == member.sha256 else { return missing() }
            _ = try assembly.begin(member.path)
            offset += member.size
        }
        return KeptPull(firstMissing: assembly.manifest.members.count, offset: offset, prefix: nil)
    }
}
