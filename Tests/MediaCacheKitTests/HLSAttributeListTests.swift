import Testing
@testable import MediaCacheKit

@Suite("HLS attribute lists")
struct HLSAttributeListTests {
    @Test func quotedStringsKeepCommasAndEqualsSigns() throws {
        let list = try AttributeList(parsing: #"CODECS="avc1.640028,mp4a.40.2",NAME="a=b, c",BANDWIDTH=800000"#)
        #expect(list.attributes.map(\.name) == ["CODECS", "NAME", "BANDWIDTH"])
        #expect(try list.quotedString("CODECS") == "avc1.640028,mp4a.40.2")
        #expect(try list.quotedString("NAME") == "a=b, c")
        #expect(try list.decimalInteger("BANDWIDTH") == 800000)
        #expect(try list.quotedString("MISSING") == nil)
    }

    @Test func typedValuesAreRead() throws {
        let list = try AttributeList(
            parsing: "RESOLUTION=1920x1080,FRAME-RATE=29.970,IV=0x0A0b,METHOD=AES-128,DEFAULT=YES,AUTOSELECT=NO")
        #expect(try list.resolution("RESOLUTION") == HLSResolution(width: 1920, height: 1080))
        #expect(try list.decimalFloat("FRAME-RATE") == 29.97)
        #expect(try list.hexadecimal("IV") == [0x0A, 0x0B])
        #expect(try list.enumeratedString("METHOD") == "AES-128")
        #expect(try list.boolean("DEFAULT") == true)
        #expect(try list.boolean("AUTOSELECT") == false)
        #expect(try list.boolean("FORCED") == false)
    }

    @Test func anOddNumberOfHexDigitsReadsAsIfZeroPadded() throws {
        #expect(try AttributeList(parsing: "IV=0xABC").hexadecimal("IV") == [0x0A, 0xBC])
    }

    @Test func spacesAroundCommasAndATrailingCommaAreTolerated() throws {
        let list = try AttributeList(parsing: #"BANDWIDTH=1,  AUDIO="aac" ,CODECS="x",   "#)
        #expect(try list.decimalInteger("BANDWIDTH") == 1)
        #expect(try list.quotedString("AUDIO") == "aac")
        #expect(list.attributes.count == 3)
    }

    @Test(arguments: [
        (#"NAME="unterminated"#, "no closing quote"),
        ("BANDWIDTH", "has no '='"),
        ("=5", "expected an attribute name"),
        ("bandwidth=5", "expected an attribute name"),
        ("A=1,A=2", "appears twice"),
        ("A=", "empty value"),
        ("A=two words", "neither quoted nor a single word"),
        (#"A="x"B=1"#, "expected ','"),
    ])
    func garbageIsRefusedWithItsReason(text: String, reason: String) {
        #expect {
            try AttributeList(parsing: text)
        } throws: { error in
            (error as? PlaylistSyntaxError)?.reason.contains(reason) == true
        }
    }

    @Test func aValueOfTheWrongTypeNamesTheAttribute() throws {
        let list = try AttributeList(
            parsing: #"BANDWIDTH="5",RESOLUTION=1920,FRAME-RATE=nan,IV=1234,DEFAULT=TRUE,URI=x,BIG=99999999999999999999"#)
        for (read, fragment) in [
            ({ _ = try list.decimalInteger("BANDWIDTH") }, "BANDWIDTH must be a decimal integer without quotes"),
            ({ _ = try list.resolution("RESOLUTION") }, "RESOLUTION must be WIDTHxHEIGHT"),
            ({ _ = try list.decimalFloat("FRAME-RATE") }, "FRAME-RATE must be a decimal number"),
            ({ _ = try list.hexadecimal("IV") }, "IV must start with 0x"),
            ({ _ = try list.boolean("DEFAULT") }, "DEFAULT must be YES or NO"),
            ({ _ = try list.quotedString("URI") }, "URI must be a quoted string"),
            ({ _ = try list.decimalInteger("BIG") }, "BIG is out of range"),
        ] as [(() throws -> Void, String)] {
            #expect {
                try read()
            } throws: { error in
                (error as? PlaylistSyntaxError)?.reason.contains(fragment) == true
            }
        }
    }
}
