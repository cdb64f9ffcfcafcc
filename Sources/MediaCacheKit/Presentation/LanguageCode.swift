/// Language tags as playlists write them: HLS's `LANGUAGE` is BCP 47 (`en`, `pt-BR`),
/// but DASH packagers (ffmpeg among them) often write ISO 639-2 (`eng`, `deu`, or the
/// bibliographic `ger`). A choice of `de` means German in all three.
enum LanguageCode {
    /// Whether BCP 47 tag `tag` is `wanted` or a more specific tag of it (`en` takes
    /// `en-GB`), its primary language written in either ISO 639 form.
    static func matches(_ tag: String, _ wanted: String) -> Bool {
        let (language, rest) = split(tag.lowercased())
        let (wantedLanguage, wantedRest) = split(wanted.lowercased())
        guard twoLetter(language) == twoLetter(wantedLanguage) else { return false }
        return wantedRest.isEmpty || rest == wantedRest || rest.hasPrefix(wantedRest + "-")
    }

    /// The primary language subtag, and what follows it (`-br`, or empty).
    private static func split(_ tag: String) -> (String, String) {
        guard let dash = tag.firstIndex(of: "-") else { return (tag, "") }
        return (String(tag[..<dash]), String(tag[dash...]))
    }

    /// The ISO 639-1 code of an ISO 639-2 one (`deu`, `ger` → `de`); any other as it is.
    private static func twoLetter(_ code: String) -> String { alpha3[code] ?? code }

    /// ISO 639-2 terminology and bibliographic codes of the languages with an ISO 639-1
    /// code that media is most often published in.
    private static let alpha3: [String: String] = {
        let table: [(String, [String])] = [
            ("en", ["eng"]), ("de", ["deu", "ger"]), ("fr", ["fra", "fre"]), ("es", ["spa"]), ("it", ["ita"]),
            ("pt", ["por"]), ("nl", ["nld", "dut"]), ("ru", ["rus"]), ("ja", ["jpn"]), ("zh", ["zho", "chi"]),
            ("ko", ["kor"]), ("ar", ["ara"]), ("hi", ["hin"]), ("sv", ["swe"]), ("no", ["nor"]), ("nb", ["nob"]),
            ("nn", ["nno"]), ("da", ["dan"]), ("fi", ["fin"]), ("pl", ["pol"]), ("cs", ["ces", "cze"]),
            ("sk", ["slk", "slo"]), ("hu", ["hun"]), ("ro", ["ron", "rum"]), ("el", ["ell", "gre"]), ("tr", ["tur"]),
            ("he", ["heb"]), ("th", ["tha"]), ("vi", ["vie"]), ("id", ["ind"]), ("ms", ["msa", "may"]),
            ("uk", ["ukr"]), ("bg", ["bul"]), ("hr", ["hrv"]), ("sr", ["srp"]), ("sl", ["slv"]), ("et", ["est"]),
            ("lv", ["lav"]), ("lt", ["lit"]), ("fa", ["fas", "per"]), ("ca", ["cat"]), ("eu", ["eus", "baq"]),
            ("gl", ["glg"]), ("is", ["isl", "ice"]), ("ga", ["gle"]), ("cy", ["cym", "wel"]), ("ta", ["tam"]),
            ("te", ["tel"]), ("bn", ["ben"]), ("ur", ["urd"]), ("mk", ["mkd", "mac"]), ("sq", ["sqi", "alb"]),
            ("hy", ["hye", "arm"]), ("ka", ["kat", "geo"]), ("af", ["afr"]), ("sw", ["swa"]), ("tl", ["tgl"]),
            ("la", ["lat"]), ("eo", ["epo"]), ("mt", ["mlt"]), ("bs", ["bos"]), ("be", ["bel"]), ("kk", ["kaz"]),
            ("mr", ["mar"]), ("pa", ["pan"]), ("gu", ["guj"]), ("kn", ["kan"]), ("ml", ["mal"]), ("ne", ["nep"]),
            ("si", ["sin"]), ("km", ["khm"]), ("lo", ["lao"]), ("my", ["mya", "bur"]), ("am", ["amh"]),
            ("yo", ["yor"]), ("zu", ["zul"]), ("xh", ["xho"]), ("ha", ["hau"]), ("so", ["som"]),
        ]
        var map: [String: String] = [:]
        for (two, threes) in table { for three in threes { map[three] = two } }
        return map
    }()
}
