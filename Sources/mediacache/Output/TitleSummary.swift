import Foundation
import MediaCacheKit

/// How `ls` and `info` show a streaming title: its kind, renditions and segments, read
/// from its `title.json` when that is the one its index row names.
struct TitleSummary {
    let object: CachedObject
    /// Nil when the title is damaged or gone (`verify` says which).
    let manifest: TitleManifest?

    init(_ object: CachedObject, store: ObjectStore) {
        self.object = object
        manifest = store.titleManifest(of: object)
    }

    /// `hls title` or `dash title`, by the manifest or else by the row's content type.
    var kind: String {
        let format = manifest?.format.rawValue ?? (object.contentType?.contains("dash") == true ? "dash" : "hls")
        return "\(format) title"
    }

    /// `hls title, 3 renditions, 412 segments` (the TYPE column of `ls`).
    var line: String {
        guard let manifest else { return kind + " (damaged: run mediacache verify)" }
        let renditions = manifest.renditions.count
        return "\(kind), \(renditions) rendition\(renditions == 1 ? "" : "s"), \(manifest.segmentCount) segments"
    }

    var jsonFields: [String: Any] {
        var fields: [String: Any] = ["kind": kind, "intact": manifest != nil]
        if let manifest {
            fields["format"] = manifest.format.rawValue
            fields["renditions"] = manifest.renditions.count
            fields["segments"] = manifest.segmentCount
        }
        return fields
    }

    /// One line per rendition for `info`: identity, kind, segments, duration.
    var renditionLines: [String] {
        (manifest?.renditions ?? []).map { "\($0.identity) (\($0.kind)): \($0.segments) segments, \(Self.duration($0.duration))" }
    }

    var renditionFields: [[String: Any]] {
        (manifest?.renditions ?? []).map {
            ["identity": $0.identity, "kind": $0.kind, "playlist": $0.playlist, "segments": $0.segments, "duration": $0.duration]
        }
    }

    /// `1:02:03` or `4:05`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        let tail = (hours > 0 ? String(format: "%02d", minutes) : "\(minutes)") + ":" + String(format: "%02d", rest)
        return hours > 0 ? "\(hours):\(tail)" : tail
    }
}
