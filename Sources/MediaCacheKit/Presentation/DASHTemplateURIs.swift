import Foundation

/// The segment URIs of one representation's `SegmentTemplate@media`, resolved against
/// its BaseURL once rather than once per segment: a timeline of a million segments
/// would spend seconds in Foundation's URL resolution. The template is resolved with a
/// marker in place of each `$Number$` and `$Time$`; their values are digits, which
/// resolution never changes, so a segment's URI is the resolved text with its digits
/// put in. Templates where that cannot be shown (a marker lost or moved, or a check
/// against a full resolution that differs) are resolved segment by segment.
struct DASHTemplateURIs {
    private enum Piece {
        case text(String)
        case value(DASHTemplate.Identifier, width: Int)
    }

    private static let marker = "mcvar"

    private let template: DASHTemplate
    private let representationID: String
    private let bandwidth: Int
    private let base: String
    /// The resolved template around its values; nil to resolve each segment.
    private var pieces: [Piece]?

    init(_ template: DASHTemplate, representationID: String, bandwidth: Int, base: String) {
        self.template = template
        self.representationID = representationID
        self.bandwidth = bandwidth
        self.base = base
        pieces = nil
        pieces = resolvedPieces()
    }

    /// The absolute URI of the segment with `number` and `time`.
    func uri(number: Int, time: Int64) throws(PlaylistSyntaxError) -> String {
        guard let pieces else {
            return try PlaylistURI.resolve(
                template.filled(representationID: representationID, bandwidth: bandwidth, number: number, time: time),
                against: base)
        }
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .value(.time, let width): result += DASHTemplate.padded(String(time), width)
            case .value(_, let width): result += DASHTemplate.padded(String(number), width)
            }
        }
        return result
    }

    private func resolvedPieces() -> [Piece]? {
        var probe = ""
        var values: [(DASHTemplate.Identifier, Int)] = []
        for part in template.parts {
            switch part {
            case .identifier(let identifier, let width) where identifier == .number || identifier == .time:
                probe += "\(Self.marker)\(values.count)"
                values.append((identifier, width))
            default:
                probe += DASHTemplate.text(
                    of: part, representationID: representationID, bandwidth: bandwidth, number: 0, time: 0)
            }
        }
        // The marker must be the template's own only where it was put.
        guard values.count <= 10, probe.lowercased().components(separatedBy: Self.marker).count == values.count + 1
        else { return nil }
        // A fragment is never fetched: resolution drops it, and the values in it.
        if let hash = probe.firstIndex(of: "#") {
            probe = String(probe[..<hash])
            values = Array(values.prefix(probe.components(separatedBy: Self.marker).count - 1))
        }
        guard let resolved = try? PlaylistURI.resolve(probe, against: base) else { return nil }
        let texts = resolved.components(separatedBy: Self.marker)
        guard texts.count == values.count + 1 else { return nil }
        var pieces: [Piece] = [.text(texts[0])]
        for (index, text) in texts.dropFirst().enumerated() {
            guard text.first == Character(String(index)) else { return nil }
            pieces.append(.value(values[index].0, width: values[index].1))
            pieces.append(.text(String(text.dropFirst())))
        }
        // One full resolution with real digits must agree.
        let fast = DASHTemplateURIs(pieces: pieces, copying: self)
        let full = try? PlaylistURI.resolve(
            template.filled(representationID: representationID, bandwidth: bandwidth, number: 4021, time: 90_112),
            against: base)
        guard let full, (try? fast.uri(number: 4021, time: 90_112)) == full else { return nil }
        return pieces
    }

    private init(pieces: [Piece], copying other: DASHTemplateURIs) {
        template = other.template
        representationID = other.representationID
        bandwidth = other.bandwidth
        base = other.base
        self.pieces = pieces
    }
}
