/// The `EXT-X-MEDIA` groups of a master playlist, and what makes two variants copies of
/// one stream on other servers (RFC 8216 6.2.1's redundant streams, content steering's
/// pathways): alike in everything but where they are, their groups included. A copy's
/// groups may have names of their own (a backup stream's audio is on its server too,
/// and a group names each rendition once), so groups compare by what they hold.
struct RenditionGroups {
    let audio: [String: [HLSRendition]]
    let subtitles: [String: [HLSRendition]]
    private let shapes: [String: String]

    init(_ master: HLSMasterPlaylist) {
        audio = Dictionary(grouping: master.renditions.filter { $0.type == .audio }, by: \.groupID)
        subtitles = Dictionary(grouping: master.renditions.filter { $0.type == .subtitles }, by: \.groupID)
        var shapes: [String: String] = [:]
        for (key, group) in Dictionary(grouping: master.renditions, by: { "\($0.type.rawValue) \($0.groupID)" }) {
            shapes[key] = group.map(Self.shape).sorted().joined(separator: "\n")
        }
        self.shapes = shapes
    }

    /// A variant without where it is, its groups by what they hold: two variants alike in
    /// this are copies of one stream.
    func whatItIs(_ variant: HLSVariant) -> HLSVariant {
        var copy = variant
        copy.uri = ""
        copy.line = 0
        copy.audioGroup = variant.audioGroup.map { shape(.audio, $0) }
        copy.videoGroup = variant.videoGroup.map { shape(.video, $0) }
        copy.subtitlesGroup = variant.subtitlesGroup.map { shape(.subtitles, $0) }
        copy.closedCaptionsGroup = variant.closedCaptionsGroup.map { shape(.closedCaptions, $0) }
        return copy
    }

    /// What group `id` holds; a group no `EXT-X-MEDIA` defines keeps its name.
    private func shape(_ type: HLSRendition.MediaType, _ id: String) -> String {
        shapes["\(type.rawValue) \(id)"] ?? "group \(id)"
    }

    /// A rendition without where it is or its group's name.
    private static func shape(_ rendition: HLSRendition) -> String {
        let described = rendition.described.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
        return [
            rendition.name, rendition.language ?? "-", "\(rendition.isDefault)", "\(rendition.isAutoselect)",
            rendition.uri == nil ? "in-band" : "own", described,
        ].joined(separator: "|")
    }
}
