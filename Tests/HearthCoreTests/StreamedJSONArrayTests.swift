import Foundation
import HearthCore
import Testing

/// Issue 41, H1 (streaming import): the reader of `{"users": [...]}` that `hearth users import` streams a file
/// through — fuzzed with random chunk splits, hostile strings, truncation, wrong shapes and a 10 MB user.
@Suite struct StreamedJSONArrayTests {
    /// A deterministic generator (SplitMix64): a failure is reproducible from its seed.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Feeds `document` in chunks of random sizes (1 byte to `maxChunk`); answers the elements as text, or the error.
    static func read(_ document: [UInt8], maxChunk: Int, _ rng: inout Seeded, member: String = "users") -> (elements: [String], error: StreamedJSONArray.Error?) {
        var reader = StreamedJSONArray(member: member)
        var elements: [String] = []
        var start = 0
        do {
            while start < document.count {
                let end = min(document.count, start + Int.random(in: 1...maxChunk, using: &rng))
                elements += try reader.feed(document[start..<end]).map { String(decoding: $0, as: UTF8.self) }
                start = end
            }
            try reader.finish()
            #expect(reader.count == elements.count)
            return (elements, nil)
        } catch let error as StreamedJSONArray.Error {
            return (elements, error)
        } catch {
            Issue.record("unexpected error \(error)")
            return (elements, nil)
        }
    }

    /// Strings that look like structure: braces, brackets, escaped quotes and backslashes, `\u` escapes (a NUL
    /// among them), raw UTF-8 (accents, CJK, emoji, a combining mark), commas and colons.
    static let hostile = [
        #"{"#, #"}"#, #"["#, #"]"#, #"\""#, #"\\"#, #"\\\""#, #"a\"},{\"b"#, #"\u0000"#, #"\u007b\u005d"#, #"\ud83d\ude00"#,
        "é", "日本語", "🙂", "e\u{301}", ",", ":", "]}", #"{\"users\": []}"#, #"\n\t\r"#, "",
    ]

    static func randomString(_ rng: inout Seeded) -> String {
        "\"" + (0..<Int.random(in: 0...4, using: &rng)).map { _ in hostile.randomElement(using: &rng)! }.joined() + "\""
    }

    static func randomValue(_ rng: inout Seeded, depth: Int = 0) -> String {
        switch Int.random(in: 0...(depth > 3 ? 3 : 6), using: &rng) {
        case 0: return randomString(&rng)
        case 1: return String(Int.random(in: -99_999...99_999, using: &rng))
        case 2: return ["true", "false", "null", "-1.5e3", "0"].randomElement(using: &rng)!
        case 3: return "{}"
        case 4, 5:
            let members = (0..<Int.random(in: 0...4, using: &rng)).map { _ in randomString(&rng) + space(&rng) + ":" + space(&rng) + randomValue(&rng, depth: depth + 1) }
            return "{" + space(&rng) + members.joined(separator: space(&rng) + "," + space(&rng)) + space(&rng) + "}"
        default:
            return "[" + (0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }

    static func space(_ rng: inout Seeded) -> String { ["", " ", "\n", "\t", "\r\n  "].randomElement(using: &rng)! }

    /// A document with `elements` under "users", and other members (arrays, objects, strings holding `"users"`)
    /// before and after it.
    static func document(_ elements: [String], _ rng: inout Seeded) -> String {
        let array = "[" + space(&rng) + elements.joined(separator: space(&rng) + "," + space(&rng)) + space(&rng) + "]"
        var members = (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomString(&rng) + ":" + randomValue(&rng) }
        members.insert("\"users\"" + space(&rng) + ":" + space(&rng) + array, at: Int.random(in: 0...members.count, using: &rng))
        return space(&rng) + "{" + space(&rng) + members.joined(separator: "," + space(&rng)) + space(&rng) + "}" + space(&rng)
    }

    /// Issue 41, H1 (streaming import, fuzz): 400 random documents, each read in random chunk splits (1 byte to
    /// 64 bytes, and 4 KB), give back exactly the elements written — byte for byte, whatever their strings hold —
    /// and every element that is an object decodes with JSONSerialization.
    @Test func randomDocumentsInRandomChunksGiveBackEveryElement() throws {
        var rng = Seeded(state: 41)
        for round in 0..<400 {
            let elements = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Self.randomValue(&rng) }
            let document = Array(Self.document(elements, &rng).utf8)
            for maxChunk in [1, 7, 64, 4096] {
                let (read, error) = Self.read(document, maxChunk: maxChunk, &rng)
                #expect(error == nil, "round \(round): \(String(describing: error)) in \(String(decoding: document, as: UTF8.self))")
                #expect(read == elements, "round \(round), chunks ≤ \(maxChunk)")
            }
            for element in elements where element.hasPrefix("{") {
                #expect((try? JSONSerialization.jsonObject(with: Data(element.utf8))) != nil, "\(element)")
            }
        }
    }

    /// Issue 41, H1 (streaming import, fuzz): a document cut at any byte is refused at `finish()` as truncated (the
    /// elements read before the cut are a prefix of the whole list); random bytes never crash the reader.
    @Test func truncatedDocumentsAndGarbageAreRefused() throws {
        var rng = Seeded(state: 4141)
        let elements = (0..<6).map { _ in Self.randomValue(&rng) }
        let document = Array(Self.document(elements, &rng).utf8)
        let end = document.lastIndex { !" \n\t\r".utf8.contains($0) }!
        for cut in 0..<end {
            let (read, error) = Self.read(Array(document[..<cut]), maxChunk: 16, &rng)
            #expect(error != nil, "cut at \(cut) was accepted")
            #expect(Array(elements.prefix(read.count)) == read)
            if cut > 0 { #expect(error?.description.contains("truncated") == true || error?.description.contains("no JSON object") == true, "\(String(describing: error))") }
        }
        for _ in 0..<300 {
            let garbage = (0..<Int.random(in: 0...200, using: &rng)).map { _ in
                Bool.random(using: &rng) ? UInt8.random(in: 0...255, using: &rng) : Array(#"{}[]",:"\ users"#.utf8).randomElement(using: &rng)!
            }
            _ = Self.read(garbage, maxChunk: 9, &rng)
        }
    }

    /// Issue 41, H1 (streaming import): the wrong shapes are refused with what is wrong and where — an empty file,
    /// a top level that is not an object, no "users" member, "users" not an array, two "users" members, data after
    /// the object, a raw NUL between members — and an empty array, a BOM and an escaped member name are fine.
    @Test func wrongShapesAreRefusedInWords() throws {
        var rng = Seeded(state: 7)
        let refused: [(String, String)] = [
            ("", "the file is empty"),
            ("   \n", "holds no JSON object"),
            (#"[{"localId":"a"}]"#, "is not a JSON object"),
            (#""users""#, "is not a JSON object"),
            ("42", "is not a JSON object"),
            (#"{"accounts": [{"localId":"a"}]}"#, #"no "users" array"#),
            ("{}", #"no "users" array"#),
            (#"{"users": {"localId":"a"}}"#, #""users" is not an array"#),
            (#"{"users": null}"#, #""users" is not an array"#),
            (#"{"users": [], "users": []}"#, #"two "users" members"#),
            (#"{"users": [{}]} {"#, "after the end of the JSON object"),
            ("{\"users\": [{}],\u{0}\"x\": 1}", "expected a member name, found byte 0x00"),
            (#"{"users": [{} {}]}"#, "expected ',' or ']' after element 0"),
            (#"{"users" [] }"#, "expected ':'"),
            (#"{"users": [,]}"#, #"expected an element of "users""#),
        ]
        for (text, expected) in refused {
            let (_, error) = Self.read(Array(text.utf8), maxChunk: 3, &rng)
            #expect(error?.description.contains(expected) == true, "\(text): \(String(describing: error))")
        }
        #expect(Self.read(Array(#"{"users": []}"#.utf8), maxChunk: 2, &rng).elements == [])
        #expect(Self.read(Array("\u{FEFF}{\"users\": [1]}".utf8), maxChunk: 2, &rng).elements == ["1"])
        #expect(Self.read(Array(#"{"us\u0065rs": [{"a":"\u0000"}]}"#.utf8), maxChunk: 2, &rng).elements == [#"{"a":"\u0000"}"#])
        // A raw NUL inside a string is the element's business (its decoder refuses it): the frame goes on.
        let nul = Self.read(Array("{\"users\": [{\"a\":\"x\u{0}y\"}, {}]}".utf8), maxChunk: 4, &rng)
        #expect(nul.error == nil && nul.elements.count == 2)
        #expect((try? JSONSerialization.jsonObject(with: Data(nul.elements[0].utf8))) == nil)
    }

    /// Issue 41, H1 (streaming import): one 10 MB user (a 10 MB display name full of braces and escaped quotes),
    /// between two small ones, comes out whole from 1 MB chunks; a counting pass (`keepingElements: false`) counts
    /// the same three and hands out nothing.
    @Test func aTenMegabyteUserComesOutWhole() throws {
        let filler = String(repeating: #"{[\"]}"#, count: 10 * 1024 * 1024 / 6)
        let big = #"{"localId":"big","displayName":""# + filler + #""}"#
        let document = Array(#"{"users": [{"localId":"a"}, "#.utf8) + Array(big.utf8) + Array(#", {"localId":"b"}]}"#.utf8)
        var reader = StreamedJSONArray(member: "users")
        var counter = StreamedJSONArray(member: "users", keepingElements: false)
        var elements: [Data] = []
        for start in stride(from: 0, to: document.count, by: 1 << 20) {
            let chunk = document[start..<min(document.count, start + (1 << 20))]
            elements += try reader.feed(chunk)
            #expect(try counter.feed(chunk).isEmpty)
        }
        try reader.finish()
        try counter.finish()
        #expect(elements.count == 3 && counter.count == 3)
        #expect(elements[1].count == big.utf8.count)
        let decoded = try JSONSerialization.jsonObject(with: elements[1]) as? [String: String]
        #expect(decoded?["displayName"]?.count == filler.count - filler.count / 6)
        #expect(String(decoding: elements[2], as: UTF8.self) == #"{"localId":"b"}"#)
    }
}
