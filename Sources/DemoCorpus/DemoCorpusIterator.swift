import Foundation

/// Produces the corpus one message at a time, in date order, holding only the open threads.
public struct DemoCorpusIterator: IteratorProtocol {
    private let setup: CorpusSetup
    private var rng: DemoRandom
    private var index = 0
    private var threads = ThreadQueue()
    private var serial = 0

    init(setup: CorpusSetup) {
        self.setup = setup
        rng = DemoRandom(seed: setup.seed)
    }

    public mutating func next() -> GeneratedMessage? {
        guard index < setup.count else { return nil }
        defer { index += 1 }
        let time = setup.time(of: index, jitter: rng.unit())
        if setup.count >= 100, index == setup.count - 12 { return headlineMessage(at: time) }
        if let due = threads.nextDue, due <= time, var thread = threads.pop() {
            return reply(in: &thread, at: time)
        }
        let roll = rng.unit()
        switch roll {
        case ..<0.18: return newConversation(at: time, fromOwner: false)
        case ..<0.24: return newConversation(at: time, fromOwner: true)
        case ..<0.51: return newBulk(.promotion, at: time)
        case ..<0.64: return newBulk(.social, at: time)
        case ..<0.86: return newBulk(.update, at: time)
        default: return newForumPost(at: time)
        }
    }

    // MARK: New messages

    /// The answer to the README's example query, "budget report from sarah last week with
    /// attachments": Sarah's budget report with its spreadsheet, a few days before the newest mail.
    private mutating func headlineMessage(at time: Int64) -> GeneratedMessage {
        let people = setup.people
        let senderIndex = people.firstIndex { $0.address == "sarah.chen@example.com" } ?? rng.pick(setup.weightedColleagues)
        let sender = people[senderIndex]
        let context = FillContext(recipientFirst: people[CorpusSetup.owner].firstName, senderFirst: sender.firstName,
                                  brand: [], unixSeconds: time, offsetMinutes: sender.offsetMinutes)
        var blocks: [BodyBlock] = [.prose(Array("Hi Alex,".utf8))]
        blocks.append(.prose(Array(("Here is the budget report for the quarter: spending by team, the forecast to year end, "
            + "and the three places where we are over plan (cloud hosting, contractors and travel). "
            + "The spreadsheet has the details per cost center.").utf8)))
        blocks.append(.prose(Array("Could you look at it before Thursday's review?".utf8)))
        appendClosing(sender: sender, to: &blocks, context: context)
        var draft = MessageDraft(index: index, messageId: makeMessageId(domain: sender.domain), unixSeconds: time,
                                 offsetMinutes: sender.offsetMinutes, from: sender, subject: Array("Budget report for the quarter".utf8))
        draft.to = [people[CorpusSetup.owner]]
        draft.blocks = blocks
        draft.attachment = AttachmentFactory.make(fileName: Array("budget-report.xlsx".utf8), rng: &rng)
        let composed = MessageComposer.compose(draft, seed: setup.seed)
        return finish(draft, composed.raw, category: .conversation, senderIndex: senderIndex, threadKey: index,
                      customLabel: nil, important: importance(of: senderIndex))
    }

    private mutating func newConversation(at time: Int64, fromOwner: Bool) -> GeneratedMessage {
        let people = setup.people
        let circleRoll = rng.unit()
        let circle: Person.Circle = circleRoll < 0.68 ? .colleague : circleRoll < 0.86 ? .external : .friend
        let correspondent = switch circle {
        case .colleague: rng.pick(setup.weightedColleagues)
        case .external: rng.pick(setup.weightedExternals)
        default: rng.pick(setup.weightedFriends)
        }
        let senderIndex = fromOwner ? CorpusSetup.owner : correspondent
        let sender = people[senderIndex]
        var to = [fromOwner ? correspondent : CorpusSetup.owner]
        var cc: [Int] = []
        if circle == .colleague && rng.chance(0.3) {
            for _ in 0..<rng.between(1, 2) {
                let other = rng.pick(setup.weightedColleagues)
                if other != correspondent && !to.contains(other) && !cc.contains(other) {
                    if rng.chance(0.5) { to.append(other) } else { cc.append(other) }
                }
            }
        }
        let topicIndex = switch circle {
        case .colleague: rng.pick(ConversationTopics.colleagueTopics)
        case .external: rng.pick(ConversationTopics.externalTopics)
        default: rng.pick(ConversationTopics.friendTopics)
        }
        let topic = ConversationTopics.all[topicIndex]
        let context = FillContext(recipientFirst: people[to[0]].firstName, senderFirst: sender.firstName,
                                  brand: [], unixSeconds: time, offsetMinutes: sender.offsetMinutes)
        let subject = rng.filled(rng.pick(topic.subjects), context: context)

        var blocks: [BodyBlock] = []
        let greetings = to.count > 1 ? Vocabulary.groupGreetings
            : circle == .external ? Vocabulary.formalGreetings : Vocabulary.greetings
        blocks.append(.prose(rng.filled(rng.pick(greetings), context: context)))
        var paragraph = sentences(from: topic.sentences, count: 2, context: context)
        if rng.chance(0.4) {
            paragraph.append(32)
            rng.fill(rng.pick(topic.sentences), into: &paragraph, context: context)
        }
        blocks.append(.prose(paragraph))
        var attachment: AttachmentFactory.Attachment?
        if !topic.attachments.isEmpty && rng.chance(0.14) {
            let name = rng.filled(rng.pick(topic.attachments), context: context)
            var mention: [UInt8] = Array("I attached ".utf8)
            mention.append(contentsOf: name)
            mention.append(" for reference.")
            blocks.append(.prose(mention))
            attachment = AttachmentFactory.make(fileName: name, rng: &rng)
        }
        if rng.chance(0.55) {
            var second = sentences(from: topic.sentences, count: 1, context: context)
            if rng.chance(0.6) {
                second.append(32)
                rng.fill(rng.pick(Vocabulary.fillers), into: &second, context: context)
            }
            blocks.append(.prose(second))
        }
        appendClosing(sender: sender, to: &blocks, context: context)

        let messageId = makeMessageId(domain: sender.domain)
        var draft = MessageDraft(index: index, messageId: messageId, unixSeconds: time,
                                 offsetMinutes: sender.offsetMinutes, from: sender, subject: subject)
        draft.to = to.map { people[$0] }
        draft.cc = cc.map { people[$0] }
        draft.blocks = blocks
        draft.attachment = attachment
        draft.rfc2231Name = rng.chance(0.25)
        draft.withHTML = rng.chance(0.08)
        draft.quotedPrintableText = rng.chance(0.3)
        let composed = MessageComposer.compose(draft, seed: setup.seed)

        let customLabel: String? = topic.isProject && rng.chance(0.6) ? "Projects" : nil
        if rng.chance(fromOwner ? 0.6 : 0.5) {
            serial += 1
            threads.push(OpenThread(
                key: index, serial: serial, kind: .conversation(topic: topicIndex), subject: subject,
                participants: [senderIndex] + to + cc, lastSender: senderIndex, lastTime: time,
                lastText: composed.text, references: [messageId], remaining: sampleReplyCount(),
                due: time + conversationDelay(), customLabel: customLabel))
        }
        return finish(draft, composed.raw, category: .conversation, senderIndex: senderIndex, threadKey: index,
                      customLabel: customLabel, important: importance(of: senderIndex))
    }

    private mutating func newBulk(_ category: DemoMailCategory, at time: Int64) -> GeneratedMessage {
        let list = switch category {
        case .promotion: BulkMailCatalog.promotions
        case .social: BulkMailCatalog.social
        default: BulkMailCatalog.updates
        }
        let spec = BulkMailCatalog.specs[rng.pick(list)]
        let senderIndex = spec.sender + 1
        let sender = setup.people[senderIndex]
        let owner = setup.people[CorpusSetup.owner]
        var context = FillContext(recipientFirst: owner.firstName, senderFirst: sender.firstName,
                                  brand: Array(sender.name.utf8), unixSeconds: time, offsetMinutes: sender.offsetMinutes)
        context.person = rng.pick(Vocabulary.words.fullNames)
        let subject = rng.filled(rng.pick(spec.subjects), context: context)
        var blocks: [BodyBlock] = []
        switch category {
        case .promotion:
            blocks.append(.heading(subject))
            blocks.append(.prose(sentences(from: spec.sentences, count: 2, context: context)))
        case .social:
            blocks.append(.prose(sentences(from: spec.sentences, count: rng.between(1, 2), context: context)))
        default:
            blocks.append(.prose(rng.filled(Vocabulary.greetings[0], context: context)))
            blocks.append(.prose(sentences(from: spec.sentences, count: 1, context: context)))
            var details: [UInt8] = []
            for (i, template) in spec.details.enumerated() {
                if i > 0 { details.append(10) }
                rng.fill(template, into: &details, context: context)
            }
            if !details.isEmpty { blocks.append(.lines(details)) }
            if spec.sentences.count > 1 && rng.chance(0.6) {
                blocks.append(.prose(sentences(from: spec.sentences, count: 1, context: context)))
            }
        }
        blocks.append(.link(label: rng.pick(spec.linkLabels), url: spec.url))
        var unsubscribe: [UInt8] = Array("https://".utf8)
        unsubscribe.append(contentsOf: sender.domain)
        unsubscribe.append("/unsubscribe?u=")
        unsubscribe.appendHex(DemoRandom.hash(setup.seed, 0xA11CE), digits: 12)
        var footer: [UInt8] = category == .promotion
            ? Array("You are receiving this email because you subscribed to the newsletter of ".utf8)
            : Array("You are receiving this email because you have an account with ".utf8)
        footer.append(contentsOf: sender.name.utf8)
        footer.append(". To stop receiving these emails, unsubscribe at any time.")
        blocks.append(.footer(footer, unsubscribe: unsubscribe))

        var draft = MessageDraft(index: index, messageId: makeMessageId(domain: sender.domain), unixSeconds: time,
                                 offsetMinutes: sender.offsetMinutes, from: sender, subject: subject)
        draft.to = [owner]
        draft.blocks = blocks
        if category != .update { draft.listUnsubscribe = unsubscribe }
        draft.withHTML = rng.chance(spec.htmlChance)
        draft.quotedPrintableText = rng.chance(0.5)
        if !spec.attachments.isEmpty && rng.chance(spec.attachmentChance) {
            let name = rng.filled(rng.pick(spec.attachments), context: context)
            draft.attachment = AttachmentFactory.make(fileName: name, rng: &rng)
            draft.rfc2231Name = rng.chance(0.2)
        }
        let composed = MessageComposer.compose(draft, seed: setup.seed)
        let customLabel: String? = spec.isReceipt && rng.chance(0.6) ? "Receipts" : nil
        if spec.isReceipt && rng.chance(0.04) {
            serial += 1
            threads.push(OpenThread(
                key: index, serial: serial, kind: .forwardedUpdate(colleague: setup.marcus), subject: subject,
                participants: [senderIndex, CorpusSetup.owner], lastSender: senderIndex, lastTime: time,
                lastText: composed.text, references: [draft.messageId], remaining: rng.between(1, 2),
                due: time + Int64(rng.between(1_800, 172_800)), customLabel: customLabel))
        }
        return finish(draft, composed.raw, category: category, senderIndex: senderIndex, threadKey: index,
                      customLabel: customLabel, important: spec.isImportant && rng.chance(0.7))
    }

    private mutating func newForumPost(at time: Int64) -> GeneratedMessage {
        let listIndex = rng.below(ForumCatalog.lists.count)
        let list = ForumCatalog.lists[listIndex]
        let senderIndex = rng.chance(0.05) ? CorpusSetup.owner : rng.pick(setup.forumPosters)
        let sender = setup.people[senderIndex]
        let context = FillContext(recipientFirst: Array("all".utf8), senderFirst: sender.firstName, brand: list.name,
                                  unixSeconds: time, offsetMinutes: sender.offsetMinutes)
        let threadIndex = rng.below(list.subjects.count)
        var subject = list.tag
        rng.fill(list.subjects[threadIndex], into: &subject, context: context)
        var blocks: [BodyBlock] = []
        if rng.chance(0.4) { blocks.append(.prose(Array("Hi all,".utf8))) }
        var paragraph = rng.filled(list.openings[threadIndex], context: context)
        paragraph.append(32)
        paragraph.append(contentsOf: sentences(from: list.sentences, count: rng.between(1, 2), context: context))
        blocks.append(.prose(paragraph))
        appendClosing(sender: sender, to: &blocks, context: context, signature: false)
        blocks.append(.lines(list.footer))

        var draft = MessageDraft(index: index, messageId: makeMessageId(domain: sender.domain), unixSeconds: time,
                                 offsetMinutes: sender.offsetMinutes, from: sender, subject: subject)
        draft.toList = list
        draft.blocks = blocks
        draft.quotedPrintableText = rng.chance(0.3)
        let composed = MessageComposer.compose(draft, seed: setup.seed)
        if rng.chance(0.4) {
            serial += 1
            threads.push(OpenThread(
                key: index, serial: serial, kind: .forum(list: listIndex), subject: subject,
                participants: [senderIndex], lastSender: senderIndex, lastTime: time,
                lastText: Array(composed.text.dropLast(list.footer.count + 2)), references: [draft.messageId],
                remaining: min(7, sampleReplyCount()), due: time + Int64(rng.between(1_800, 172_800)),
                customLabel: nil))
        }
        return finish(draft, composed.raw, category: .forum, senderIndex: senderIndex, threadKey: index,
                      customLabel: nil, important: false)
    }

    // MARK: Replies and forwards

    private mutating func reply(in thread: inout OpenThread, at time: Int64) -> GeneratedMessage {
        let people = setup.people
        let owner = CorpusSetup.owner
        var senderIndex: Int
        var to: [Int] = []
        var cc: [Int] = []
        var subject: [UInt8] = Array("Re: ".utf8)
        var blocks: [BodyBlock] = []
        var toList: MailingList?
        var category = DemoMailCategory.conversation
        var forwardingNow = false

        switch thread.kind {
        case .conversation(let topicIndex):
            let topic = ConversationTopics.all[topicIndex]
            let others = thread.participants.filter { $0 != owner && $0 != thread.lastSender }
            if thread.lastSender != owner {
                senderIndex = rng.chance(0.6) || others.isEmpty ? owner : rng.pick(others)
            } else {
                let candidates = thread.participants.filter { $0 != owner }
                senderIndex = candidates.isEmpty ? thread.participants[0] : candidates[0]
            }
            if senderIndex == owner && !thread.forwarded && rng.chance(0.08) {
                // Forward the conversation to a colleague who is not part of it.
                let colleague = rng.pick(setup.weightedColleagues)
                if !thread.participants.contains(colleague) {
                    forwardingNow = true
                    to = [colleague]
                }
            }
            let sender = people[senderIndex]
            if !forwardingNow {
                to = [thread.lastSender == senderIndex ? thread.participants[0] : thread.lastSender]
                cc = Array(thread.participants.filter { $0 != senderIndex && $0 != to[0] }.prefix(2))
            }
            let context = FillContext(recipientFirst: people[to[0]].firstName, senderFirst: sender.firstName,
                                      brand: [], unixSeconds: time, offsetMinutes: sender.offsetMinutes)
            if forwardingNow {
                blocks.append(.prose(rng.filled(rng.pick(Vocabulary.greetings), context: context)))
                blocks.append(.prose(rng.filled(rng.pick(Vocabulary.forwardNotes), context: context)))
                blocks.append(.lines(sender.firstName))
                blocks.append(.lines(forwardBlock(thread)))
            } else {
                if rng.chance(0.35) {
                    blocks.append(.prose(rng.filled(rng.pick(Vocabulary.greetings), context: context)))
                }
                var paragraph: [UInt8] = []
                if rng.chance(0.6) {
                    rng.fill(rng.pick(Vocabulary.replyOpeners), into: &paragraph, context: context)
                    paragraph.append(32)
                }
                paragraph.append(contentsOf: sentences(from: topic.replies, count: rng.between(1, 2), context: context))
                if rng.chance(0.3) {
                    paragraph.append(32)
                    rng.fill(rng.pick(topic.sentences), into: &paragraph, context: context)
                }
                blocks.append(.prose(paragraph))
                if rng.chance(0.2) {
                    blocks.append(.prose(rng.filled(rng.pick(Vocabulary.fillers), context: context)))
                }
                appendClosing(sender: sender, to: &blocks, context: context)
                if rng.chance(0.5) { blocks.append(quoteBlock(thread)) }
            }

        case .forum(let listIndex):
            category = .forum
            let list = ForumCatalog.lists[listIndex]
            toList = list
            repeat {
                senderIndex = rng.chance(0.06) ? owner : rng.pick(setup.forumPosters)
            } while senderIndex == thread.lastSender
            let sender = people[senderIndex]
            let context = FillContext(recipientFirst: people[thread.lastSender].firstName, senderFirst: sender.firstName,
                                      brand: list.name, unixSeconds: time, offsetMinutes: sender.offsetMinutes)
            if rng.chance(0.7) { blocks.append(quoteBlock(thread)) }
            var paragraph = sentences(from: list.replies, count: rng.between(1, 2), context: context)
            if rng.chance(0.3) {
                paragraph.append(32)
                rng.fill(rng.pick(list.sentences), into: &paragraph, context: context)
            }
            blocks.append(.prose(paragraph))
            appendClosing(sender: sender, to: &blocks, context: context, signature: false)
            blocks.append(.lines(list.footer))

        case .forwardedUpdate(let colleague):
            if !thread.forwarded {
                senderIndex = owner
                to = [colleague]
                forwardingNow = true
                let sender = people[owner]
                let context = FillContext(recipientFirst: people[colleague].firstName, senderFirst: sender.firstName,
                                          brand: [], unixSeconds: time, offsetMinutes: sender.offsetMinutes)
                blocks.append(.prose(rng.filled(rng.pick(Vocabulary.greetings), context: context)))
                blocks.append(.prose(rng.filled(rng.pick(Vocabulary.forwardNotes), context: context)))
                blocks.append(.lines(sender.firstName))
                blocks.append(.lines(forwardBlock(thread)))
            } else {
                senderIndex = colleague
                to = [owner]
                let sender = people[colleague]
                let context = FillContext(recipientFirst: people[owner].firstName, senderFirst: sender.firstName,
                                          brand: [], unixSeconds: time, offsetMinutes: sender.offsetMinutes)
                blocks.append(.prose(rng.filled(rng.pick(Vocabulary.acknowledgements), context: context)))
                blocks.append(.lines(sender.firstName))
                if rng.chance(0.5) { blocks.append(quoteBlock(thread)) }
            }
        }

        if forwardingNow {
            subject = Array("Fwd: ".utf8)
            subject.append(contentsOf: thread.subject)
            thread.subject = subject
            thread.forwarded = true
            thread.participants.append(contentsOf: to)
        } else {
            subject.append(contentsOf: thread.subject)
        }
        let sender = people[senderIndex]
        let parent = thread.references[thread.references.count - 1]
        var draft = MessageDraft(index: index, messageId: makeMessageId(domain: sender.domain), unixSeconds: time,
                                 offsetMinutes: sender.offsetMinutes, from: sender, subject: subject)
        draft.to = to.map { people[$0] }
        draft.cc = cc.map { people[$0] }
        draft.toList = toList
        draft.inReplyTo = parent
        draft.references = thread.references
        draft.blocks = blocks
        draft.withHTML = category == .conversation && rng.chance(0.06)
        draft.quotedPrintableText = rng.chance(0.3)
        if case .conversation(let topicIndex) = thread.kind, !forwardingNow {
            let topic = ConversationTopics.all[topicIndex]
            if !topic.attachments.isEmpty && rng.chance(0.05) {
                let context = FillContext(recipientFirst: [], senderFirst: sender.firstName, brand: [],
                                          unixSeconds: time, offsetMinutes: sender.offsetMinutes)
                let name = rng.filled(rng.pick(topic.attachments), context: context)
                draft.attachment = AttachmentFactory.make(fileName: name, rng: &rng)
                draft.rfc2231Name = rng.chance(0.25)
            }
        }
        let composed = MessageComposer.compose(draft, seed: setup.seed)

        thread.references.append(draft.messageId)
        thread.lastSender = senderIndex
        thread.lastTime = time
        if let list = toList {
            thread.lastText = Array(composed.text.dropLast(list.footer.count + 2))
        } else {
            thread.lastText = composed.text
        }
        thread.remaining -= 1
        let key = thread.key
        let customLabel = thread.customLabel
        if thread.remaining > 0 {
            thread.due = time + (category == .forum ? Int64(rng.between(1_800, 172_800)) : conversationDelay())
            threads.push(thread)
        }
        return finish(draft, composed.raw, category: category, senderIndex: senderIndex, threadKey: key,
                      customLabel: customLabel, important: category == .conversation && importance(of: senderIndex))
    }

    private mutating func quoteBlock(_ thread: OpenThread) -> BodyBlock {
        let last = setup.people[thread.lastSender]
        var attribution: [UInt8] = Array("On ".utf8)
        attribution.appendAttributionDate(thread.lastTime, offsetMinutes: last.offsetMinutes)
        attribution.append(", ")
        attribution.append(contentsOf: last.displayMailbox)
        attribution.append(" wrote:")
        return .quote(attribution: attribution, text: thread.lastText)
    }

    private func forwardBlock(_ thread: OpenThread) -> [UInt8] {
        let last = setup.people[thread.lastSender]
        var out: [UInt8] = Array("---------- Forwarded message ---------\nFrom: ".utf8)
        out.append(contentsOf: last.displayMailbox)
        out.append("\nDate: ")
        out.appendAttributionDate(thread.lastTime, offsetMinutes: last.offsetMinutes)
        out.append("\nSubject: ")
        if thread.references.count > 1 { out.append("Re: ") }
        out.append(contentsOf: thread.subject)
        out.append("\nTo: ")
        out.append(contentsOf: setup.people[CorpusSetup.owner].displayMailbox)
        out.append("\n\n")
        out.append(contentsOf: thread.lastText.prefix(4_000))
        while out.last == 10 { out.removeLast() }
        return out
    }

    // MARK: Pieces

    /// `count` distinct sentences (as far as the list allows), separated by spaces.
    private mutating func sentences(from list: [Template], count: Int, context: FillContext) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(200)
        var first = rng.below(list.count)
        for i in 0..<min(count, list.count) {
            if i > 0 {
                out.append(32)
                first = (first + 1 + rng.below(max(1, list.count - 1))) % list.count
            }
            rng.fill(list[first], into: &out, context: context)
        }
        return out
    }

    private mutating func appendClosing(sender: Person, to blocks: inout [BodyBlock], context: FillContext,
                                        signature: Bool = true) {
        var closing: [UInt8] = []
        if rng.chance(0.8) {
            rng.fill(rng.pick(Vocabulary.closings), into: &closing, context: context)
            closing.append(10)
        }
        closing.append(contentsOf: sender.firstName)
        blocks.append(.lines(closing))
        if signature, let lines = sender.signature, rng.chance(0.7) {
            var block: [UInt8] = Array("-- \n".utf8)
            block.append(contentsOf: lines)
            blocks.append(.lines(block))
        } else if signature && sender.circle == .owner && rng.chance(0.1) {
            blocks.append(.lines(Array("Sent from my phone".utf8)))
        }
    }

    private mutating func makeMessageId(domain: [UInt8]) -> [UInt8] {
        var id: [UInt8] = []
        id.reserveCapacity(48)
        id.appendHex(DemoRandom.hash(setup.seed, UInt64(index)), digits: 16)
        id.append(UInt8(ascii: "."))
        id.appendDecimal(index)
        id.append(UInt8(ascii: "@"))
        id.append(contentsOf: domain)
        return id
    }

    /// Replies after the first message: mostly one to three, sometimes up to eleven.
    private mutating func sampleReplyCount() -> Int {
        let r = rng.unit()
        if r < 0.40 { return 1 }
        if r < 0.65 { return 2 }
        if r < 0.80 { return 3 }
        if r < 0.92 { return rng.between(4, 6) }
        return rng.between(7, 11)
    }

    /// Minutes to hours mostly, sometimes days.
    private mutating func conversationDelay() -> Int64 {
        let r = rng.unit()
        if r < 0.6 { return Int64(rng.between(600, 14_400)) }
        if r < 0.9 { return Int64(rng.between(14_400, 129_600)) }
        return Int64(rng.between(129_600, 345_600))
    }

    private mutating func importance(of sender: Int) -> Bool {
        let person = setup.people[sender]
        switch person.circle {
        case .owner: return false
        case .colleague: return rng.chance(person.weight >= 10 ? 0.5 : 0.25)
        case .external: return rng.chance(0.3)
        default: return rng.chance(0.1)
        }
    }

    // MARK: Labels and the result

    private mutating func finish(_ draft: MessageDraft, _ raw: [UInt8], category: DemoMailCategory, senderIndex: Int,
                                 threadKey: Int, customLabel: String?, important: Bool) -> GeneratedMessage {
        var labels: [String] = []
        var unread = false
        if senderIndex == CorpusSetup.owner {
            labels.append("Sent")
            if rng.chance(0.01) { labels.append("Starred") }
        } else {
            let age = setup.endSeconds - draft.unixSeconds
            let recent = age <= setup.inboxWindowSeconds
            let inInbox = rng.chance(recent ? (category == .conversation ? 0.92 : 0.75) : 0.08)
            labels.append(inInbox ? "Inbox" : "Archived")
            if important { labels.append("Important") }
            if rng.chance(category == .conversation ? 0.05 : category == .update ? 0.02 : 0.004) {
                labels.append("Starred")
            }
            switch category {
            case .promotion: labels.append("Category Promotions")
            case .social: labels.append("Category Social")
            case .update: labels.append("Category Updates")
            case .forum: labels.append("Category Forums")
            case .conversation: break
            }
            let unreadChance: Double
            if age <= 14 * 86_400 {
                unreadChance = category == .conversation ? 0.3 : category == .update ? 0.35 : 0.55
            } else if inInbox {
                unreadChance = category == .promotion ? 0.3 : 0.08
            } else {
                unreadChance = 0.01
            }
            unread = rng.chance(unreadChance)
        }
        if let customLabel { labels.append(customLabel) }
        if unread { labels.append("Unread") }
        return GeneratedMessage(
            raw: raw,
            messageId: String(decoding: draft.messageId, as: UTF8.self),
            labels: labels,
            date: Date(timeIntervalSince1970: TimeInterval(draft.unixSeconds)),
            threadKey: threadKey,
            hasAttachment: draft.attachment != nil,
            isRead: !unread,
            fromAddress: draft.from.address,
            index: draft.index,
            inReplyTo: draft.inReplyTo.map { String(decoding: $0, as: UTF8.self) },
            hasHTML: draft.withHTML,
            category: category)
    }
}
