/// What an earlier pull of the same pack left that passes its checks: members held whole,
/// and the first bytes of those it was cut off in. A pull reads the pack in order but
/// jumps ahead to what a player asks for, so any member may be held, whatever comes
/// before it.
struct KeptPull {
    struct Prefix {
        let bytes: Int64
        /// The SHA-256 so far, of those bytes.
        let digest: Digest
    }

    /// By index in `title.json`: whether the member is held whole and checked.
    let whole: [Bool]
    /// By index in `title.json`: members of which only the first bytes are held.
    let prefixes: [Int: Prefix]
    /// The bytes of the pack held: `title.json`, whole members and prefixes.
    let bytes: Int64

    /// Hashes every member `staged` holds, each whole one taken into `assembly`; a file
    /// longer than its member or different from it is not kept.
    static func scan(_ staged: StagedTitle, checking assembly: inout TitleAssembly) throws -> KeptPull {
        let members = assembly.manifest.members
        var whole = [Bool](repeating: false, count: members.count)
        var prefixes: [Int: Prefix] = [:]
        var bytes = Int64(assembly.manifestBytes.count)
        for (index, member) in members.enumerated() {
            guard let file = staged.existing(member.path), let size = try? file.size(), size > 0 || member.size == 0,
                size <= member.size
            else { continue }
            let digest = Digest(.sha256)
            guard (try? file.forEachBlock(length: size, { digest.update($0) })) != nil else { continue }
            if size < member.size {
                prefixes[index] = Prefix(bytes: size, digest: digest)
                bytes += size
            } else if digest.finalizeHex() == member.sha256 {
                _ = try assembly.begin(member.path)
                whole[index] = true
                bytes += size
            }
        }
        return KeptPull(whole: whole, prefixes: prefixes, bytes: bytes)
    }

    /// Nothing kept of `assembly`'s title but its `title.json`.
    static func none(of assembly: TitleAssembly) -> KeptPull {
        KeptPull(
            whole: [Bool](repeating: false, count: assembly.manifest.members.count), prefixes: [:],
            bytes: Int64(assembly.manifestBytes.count))
    }
}
