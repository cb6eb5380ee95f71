"""Short guides for the Help menu: one per evaluation, plus the projection, the review of
annotations, and embeddings brought in or exported.

Each guide says what question it answers, the procedure as the code runs it, what the
numbers mean, what data it needs and one pitfall. ``GUIDES`` maps a key (the evaluation's
name in ``sentspace.app.analysis.evaluations.EVALUATIONS`` / ``COMPARISONS``, or "projection", "review",
"embeddings", "filter", "regions", "explain") to the guide as HTML for a message box or text browser; ``TITLES`` gives
the menu entry of each.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Guide:
    """The five parts of a guide; each is an HTML fragment."""

    title: str
    question: str
    procedure: str
    numbers: str
    data: str
    pitfall: str

    def html(self) -> str:
        return (
            f"<h3>{self.title}</h3>"
            f"<h4>Question</h4><p>{self.question}</p>"
            f"<h4>Procedure</h4><p>{self.procedure}</p>"
            f"<h4>What the numbers mean</h4><p>{self.numbers}</p>"
            f"<h4>Data it needs</h4><p>{self.data}</p>"
            f"<h4>Pitfall</h4><p>{self.pitfall}</p>"
        )


_GUIDES: dict[str, Guide] = {
    "classification": Guide(
        "Semantic classification of paraphrase groups",
        "Are sentences with the same meaning co-located, so that a <i>linear</i> "
        "classifier can tell which paraphrase group a sentence belongs to?",
        "Groups with fewer than 3 sentences are dropped. Every remaining sentence is "
        "encoded and a linear SVM (LIBLINEAR, balanced class weights) predicts its group, "
        "scored by stratified 3-fold cross-validation: a group of 3 gives 2 training "
        "sentences and 1 test sentence. Encoders that learn statistics from the data "
        "(TF-IDF, PCA over bag of words, Doc2Vec) are cloned and refitted on each "
        "training fold; encoders that only collect a vocabulary are fitted once.",
        "Mean accuracy over the folds, and each fold's accuracy: the share of test "
        "sentences put in their own group. With hundreds of groups, chance is near 0. "
        "Its 95% interval resamples whole groups (a group's sentences are not "
        "independent). The misclassified sentences are ringed in red in the projection; "
        "the chart counts them per group, and a bar selects its group's sentences.",
        "A corpus with paraphrase groups (a grouping that is not of kind "
        '"class"): the bundled msrp-grouped, white2015 grouped corpora, Opinosis '
        "topics, MSRP pairs folded into groups, SCUs of a pyramid.",
        "Fitting a learning encoder on all sentences before splitting leaks the test "
        "sentences and inflates accuracy by a few points; the evaluation refits per fold "
        "for that reason, so it is slower for TF-IDF than for plain bag of words.",
    ),
    "relatedness": Guide(
        "Relatedness: cosine against human scores",
        "Does the cosine of two sentence embeddings rise and fall with how related "
        "people judged the sentences?",
        "For every scored pair, the cosine of the two embeddings (no training); "
        "Spearman and Pearson correlation with the gold score per subset (STS 2014 "
        "headlines, images, ...) and pooled over all. For the MSE, cosine is mapped "
        "linearly from [-1, 1] onto the gold range (e.g. SICK's 1-5). Pairs with an "
        "empty gold score are skipped and counted.",
        "Spearman (rank agreement, the headline) and Pearson from -1 to 1, with "
        "bootstrap confidence intervals; MSE in gold-score units (lower is better). "
        "The cosine-vs-gold scatter opens a pair when clicked.",
        "Sentence pairs with gold similarity scores: SICK (relatedness 1-5), STS "
        "2012-2016 per subset, STS Benchmark.",
        "Pooled correlation over several STS subsets mixes scales and domains; read the "
        "per-subset rows too. And MSE depends on the cosine mapping, the correlations "
        "do not.",
    ),
    "transfer": Guide(
        "Supervised transfer: logistic regression on embeddings",
        "How much task-relevant information does the embedding carry for a simple "
        "classifier trained on top of it?",
        "Logistic regression on the embeddings. Sentence tasks (MR, CR, SUBJ, MPQA, TREC) "
        "use one embedding per sentence; pair tasks (MSRP paraphrase detection, SICK "
        "entailment) use the concatenation [|u - v|, u * v]. The dataset's train/test "
        "split is used when it has one, otherwise stratified 10-fold cross-validation. "
        "Encoders that learn from data are fitted on the training side only.",
        "Test accuracy (with a bootstrap interval) and per-fold accuracy; F1 for binary "
        "tasks such as MSRP.",
        "Labelled sentence pairs (MSRP, SICK entailment) or sentences with class "
        'labels (a grouping of kind "class": the SentEval transfer tasks).',
        "A classifier can find signal a cosine never uses, so a good transfer score says "
        "little about the geometry the other views show; compare with relatedness and "
        "ranking before concluding.",
    ),
    "ranking": Guide(
        "Paraphrase ranking",
        "Among all the sentences of the corpus, is a sentence's paraphrase partner its "
        "nearest neighbour?",
        "The pool is every distinct sentence of the corpus (for MSRP, train + test). For "
        "each sentence of a positive pair, in both directions, all other pool sentences "
        "are ranked by cosine and the rank of its partner is recorded. A corpus of "
        "paraphrase groups (Multi30K's five descriptions of an image) gives a query for "
        "every ordered pair of two members of a group. Ties are "
        "<b>pessimistic</b> by default: every sentence exactly as similar as the partner "
        "ranks before it, so a zero vector gets the worst rank.",
        "Accuracy@1, @10, @100 (share of queries whose partner ranks within k), mean "
        "rank of the correct paraphrase (MRC, lower is better) and mean reciprocal rank "
        "(MRR, 1 is perfect), with bootstrap intervals.",
        "Sentence pairs with paraphrase labels (label 1 = paraphrase), such as MSRP, or "
        "paraphrase groups (msrp-grouped, multi30k-captions).",
        "Bag-of-words encoders produce many exact ties; under pessimistic ties they are "
        "charged for them. Other tie rules (mid, optimistic) are parameters, and give "
        "higher numbers for the same space. In a group the query's other members are in "
        "the pool too, and only one of them can rank first: read the numbers against "
        "what a perfect ranking scores, which the result states (accuracy@1 0.25 in "
        "groups of five).",
    ),
    "detection": Guide(
        "Zero-shot paraphrase detection",
        "Without any training, does a cosine threshold separate paraphrase pairs from the rest?",
        "The cosine of every pair labelled 1 or 0; a pair is called a paraphrase when "
        "its cosine passes a threshold. The precision-recall curve is traced over all "
        "thresholds.",
        "Average precision (area under the PR curve, with a bootstrap interval), the best "
        "F1 and its threshold, and the positive-rate baseline that a random scorer's "
        "average precision sits at. Clicking the curve selects the pairs at that "
        "threshold.",
        "Sentence pairs labelled 1 (paraphrase) and 0 (not), such as MSRP.",
        "The best-F1 threshold is read off the very pairs it is scored on: an optimistic "
        "number, not a tuned classifier's test score.",
    ),
    "learning-curve": Guide(
        "Learning curve of the pair classifier",
        "How many labelled pairs does a supervised paraphrase detector on this encoder need?",
        "Logistic regression on [|u - v|, u * v] (as in transfer) trained on 1%, 2%, 5%, "
        "10%, 20%, 50% and 100% of the training split; the subsets are nested and "
        "stratified by label (seeded). Each is tested on the whole test split. Encoders "
        "that learn from data are refitted on each training subset.",
        "Test accuracy per training share, with bootstrap intervals; the number of "
        "training pairs actually used at each share.",
        "Sentence pairs labelled 1 and 0 with a <b>train</b> and a <b>test</b> split (MSRP).",
        "At 1% the classifier sees a few dozen pairs: its accuracy swings with the "
        "seed, so read the interval before the point.",
    ),
    "histograms": Guide(
        "Similarity and word-overlap histograms",
        "How far apart are the cosines of positive and negative pairs, and how much of "
        "that is plain word overlap?",
        "Pairs are split into positive vs negative by label (MSRP) or, for scored pairs, "
        "high vs low relatedness at the midpoint of the gold scale (3 for SICK's 1-5). "
        "For each side: a histogram of the cosines and one of the word overlap, the "
        "Jaccard index of the two sentences' sets of lowercased words (punctuation is "
        "not a word). Bin edges are fixed, so histograms of different encoders line "
        "up.",
        "Pairs, mean cosine and mean word overlap of each side. Clicking a bar selects its pairs.",
        "Sentence pairs with 0/1 labels or gold scores (MSRP, SICK, STS).",
        "If the word-overlap histograms already separate the two sides, the dataset "
        "rewards bag-of-words models: a good cosine separation then proves little "
        "about meaning. Compare with the random bag-of-words baseline.",
    ),
    "latent": Guide(
        "Latent-relatedness probe",
        "When groups contradict each other while sharing most words (<i>My soup is very "
        "cold</i> / <i>There is steam coming out of my soup</i>), does each sentence "
        "still rank its own group's members above the other group's?",
        "Each sentence is an anchor: every other sentence is ranked by cosine to it "
        "(ties pessimistic, as in ranking). The full similarity matrix is built, so the "
        "probe is bounded to 2,000 grouped sentences.",
        "Mean average precision of the own group among the others; how many anchors "
        "separate their group completely; the gap between an anchor's lowest same-group "
        "and highest other-group similarity (positive = separated).",
        "A small corpus of sentences in at least two groups of two or more "
        "(<code>latent-relatedness/soup.tsv</code>), at most 2,000 grouped sentences.",
        "Bag-of-words encoders see the shared words, not the contradiction: a negative "
        "gap for them is the expected outcome, not a bug.",
    ),
    "pyramid": Guide(
        "Pyramid (SCU) paraphrase tests",
        "Do text fragments that annotators put in one Summary Content Unit lie closer "
        "together than lexically similar fragments of other SCUs?",
        "Items are contributors of 3 or more words with no pronoun. Binary test: "
        "positive pairs come from the same SCU and differ in a content word, negative "
        "pairs from different SCUs of one pyramid sharing more than 3 words (counted "
        "with repetition by default, or as distinct words); the cosine threshold "
        "maximising F1 is chosen on a random 10% of the pairs (seeded; never the cut "
        "that calls every pair positive) and F1, precision and recall are reported on "
        "the other 90%. Ranking test: a contributor asks for another of its SCU among "
        "3 distractors from other SCUs. By default the distractors are the fragments "
        "most like the <i>answer</i> (the paper's construction: can the encoder tell "
        "which of several look-alikes means what the question means?); "
        "<code>--distractors question</code> picks those most like the question, which "
        "is adversarial for lexical encoders, whose cosine is nearly the similarity "
        "that chose them.",
        "Binary F1 / precision / recall on the held-out pairs; ranking success rate "
        "(answer first of 4) and MRR. Ties rank the answer below tied distractors. "
        "Counts of questions and pairs say how much data survived the constraints.",
        "A pyramid corpus: DUC/TAC <code>.pyr</code> files, whose groups are SCUs.",
        "The constraints keep few items of a small pyramid; check the counts (shown "
        "beside the paper's totals over DUC 2005-2007) before reading a score from a "
        "dozen pairs. A threshold at the edge of the tune pairs' cosines is flagged: "
        "those pairs do not separate the classes.",
    ),
    "costra": Guide(
        "Costra 1.1 geometric orderings (Czech)",
        "Does the space order Czech sentence transformations the way annotators did: "
        "paraphrases nearer the seed than changes of meaning, past and future on "
        "either side of the present?",
        "Each comparison tests that one pair of sentences is strictly more cosine-similar "
        "than another (basic: paraphrase vs different meaning, nonsense, minimal change; "
        "modality; and the ordered classes time, style, generalization, opposite "
        "meaning). By default the sentences themselves are encoded (not the tokenized "
        "column the reference package hands out), so the scores, projection and exported "
        "embeddings come from the same encoding; <code>tokenized</code> is a parameter.",
        "Per class, the share of comparisons that hold (ties fail), rounded to 3 digits "
        "as the reference evaluator does; overall = mean of the six class scores. The "
        "numbers equal the <code>costra</code> package's on the same embeddings. The "
        "Costra view draws a seed group's paths with failing comparisons highlighted.",
        "The Costra 1.1 corpus (<code>costra/data.tsv</code>), with its r1-r4 id lists.",
        "Scores from the tokenized column and from the raw sentences differ for "
        "encoders that see punctuation; say which one a number comes from. English-only "
        "encoders (GloVe, MiniLM) see Czech as rare tokens: <code>e5-small</code> "
        "(multilingual-e5-small) was trained on Czech (mean 0.512 against bag of "
        "words' 0.454 here).",
    ),
    "costra-offsets": Guide(
        "Costra transformations as directions",
        "Is a transformation such as <i>past tense</i> or <i>ban</i> one direction in "
        "the space, as word analogies (king - man + woman) suggest?",
        "Every non-seed sentence's offset is its embedding minus its seed's. "
        "Consistency of a type: the mean cosine between its offsets from different seed "
        "groups (zero offsets left out); the baseline shuffles the types within each "
        "seed group 20 times. Analogy: seed + the mean offset of the type over the "
        "<i>other</i> seed groups is compared with the group's non-seed sentences.",
        "Consistency near the baseline: the type is no direction. Analogy accuracy is "
        "the share of (group, type) questions whose true sentence ranks first (ties "
        "count against it); MRR the mean of 1/rank. Chance is about 1 in 13.",
        "The Costra 1.1 corpus (<code>costra/data.tsv</code>), with its seed groups "
        "and transformation types.",
        "In bag-of-words spaces an offset is the words changed, so only types that "
        "add the same words (ban, possibility) look consistent; English-only encoders "
        "see most Czech words as unknown and give many zero offsets.",
    ),
    "bitext": Guide(
        "Bitext retrieval",
        "Does a sentence's translation come out as its nearest neighbour among all the "
        "sentences of the other language (MTEB's bitext mining, Tatoeba style)?",
        "For a language pair (option <b>languages</b>, en-de by default), every sentence "
        "of the first language with a translation in the second is a query; the most "
        "cosine-similar sentence of the whole second language is its answer, and the "
        "exact rank of the true translation is recorded (ties pessimistic). Then the same "
        "from the second language to the first.",
        "Accuracy (the answer is the translation), MRR, and F1 as MTEB computes it "
        "(scikit-learn's weighted F1 with each target sentence a class: a correct "
        "answer that other queries also gave counts 2 / (1 + how many gave it)), per "
        "direction and over both, with bootstrap intervals. Chance accuracy is one over "
        "the number of sentences searched.",
        "A parallel corpus: a <b>language</b> per sentence and its translations as "
        "positive pairs, as multi30k-parallel gives them.",
        "An English-only encoder still scores above chance by the names, numbers and "
        "cognates a translation keeps; bag of words does too. Compare against them "
        "before crediting an encoder with crossing languages.",
    ),
    "agreement": Guide(
        "Misclassification agreement of encoders",
        "When two encoders both misclassify a sentence, do they make the <i>same</i> mistake?",
        "The classification evaluation runs with every chosen encoder on the same "
        "folds (same seed, folds and minimum group size). For each pair m1, m2: "
        "P(m1(x) = m2(x) | both wrong) = #{both wrong, same group} / #{both wrong}.",
        "An N x N heatmap with numerator/denominator in each cell; the diagonal holds "
        "each encoder's own mistakes. McNemar's test compares two encoders' "
        "correctness. Clicking a cell lists the sentences both got wrong the same way.",
        "A corpus with paraphrase groups (as for classification), and two or more encoders.",
        "A high agreement over a denominator of 5 means little; read the counts, not "
        "just the colour.",
    ),
    "projection": Guide(
        "Projection and its faithfulness",
        "What does the space look like in 2D, and where does the picture lie?",
        "PCA (linear, deterministic), UMAP (n_neighbors, min_dist, metric) or t-SNE "
        "(perplexity), optionally after PCA to 50 dimensions, with a seed; computed in "
        "the background. Faithfulness: for every point, the share of its 10 nearest "
        "neighbours by cosine in the original space that are also among its 10 nearest "
        "in 2D.",
        "Axis labels give PCA's explained variance. Faithfulness runs from 0 (its 2D "
        "neighbours are strangers) to 1 (the picture is honest around this point); "
        "colour by it to see where, and read the corpus mean in the legend. Above "
        "50,000 points UMAP is fitted on a sample (the legend says how many) and "
        "faithfulness is measured on 10,000 points (the rest grey, not measured).",
        "Embeddings of any corpus: run an encoder, or load your own embeddings.",
        "UMAP and t-SNE distances between clusters, and cluster sizes, mean nothing; "
        "only the neighbourhoods faithfulness measures are kept. Compare encoders on "
        "the numbers, not on how tidy the picture looks.",
    ),
    "review": Guide(
        "Suspicious annotations and edits",
        "Which annotations does the embedding space disagree with, so a linguist can "
        "check them first?",
        "The corpus is encoded with the chosen encoder and ranked lists are built: "
        "sentences whose nearest neighbours are mostly in another group, SCU "
        "contributors far from their SCU, loose groups (split?), close groups "
        "(merge?), gold scores that disagree with cosine, and Costra orderings every "
        "encoder rejects. Edits (move a sentence, split or merge groups, set a pair's "
        "score or label, mark reviewed, add a note) go to an append-only journal that is "
        "replayed when the corpus is opened again; undo and redo are journalled too.",
        "Each list is ordered most suspicious first, with the numbers behind the flag "
        "(and one column per encoder when there are several, so a flag only one "
        "encoder raises shows). Export writes the corrected corpus and a change log.",
        "A corpus with groups, SCUs, scored pairs or Costra orderings, depending on the list.",
        "A flag is the encoder's opinion, not evidence: bag-of-words flags sentences "
        "that paraphrase with other words. Prefer flags raised by several encoders.",
    ),
    "embeddings": Guide(
        "Bring your own embeddings, or export them",
        "Can I explore and evaluate vectors computed elsewhere, or take sentspace's "
        "vectors to another tool?",
        "Load embeddings (.npy, .npz, Embedding Projector vectors.tsv + metadata.tsv, "
        ".parquet): rows are aligned to the corpus by an id column, else a text column, "
        "else row order when there is exactly one row per sentence. The file becomes an "
        "encoder that every view and evaluation accepts. Export writes the embeddings "
        "or the 2D coordinates as .npy with a JSON sidecar, the Projector pair, or "
        "Parquet, one row per corpus entry in corpus order.",
        "The encoder list says how the rows were aligned and their dimension.",
        "One embedding per corpus sentence, with ids, texts, or the corpus's exact row count.",
        "Precomputed embeddings cannot encode new text: typed nearest-neighbour queries "
        "and evaluations that refit per fold cannot use them as a fresh encoder would; "
        "their vectors stay as computed, including any fitting on test sentences "
        "done elsewhere.",
    ),
    "filter": Guide(
        "Filter: the sentences that pass",
        "Which sentences, of which group, length, label, region or score, do the views "
        "and evaluations look at?",
        "The Filter tab charts every column of the corpus (its groups and their sizes, "
        "words, labels and scores of its pairs, the run's regions, classification and "
        "faithfulness). Clicking a bar or brushing a range adds a condition, shown as a "
        "chip; conditions of different columns must all hold. The projection greys the "
        "sentences that fail, the Corpus table and the neighbours list only those that "
        "pass. The same condition is an expression <code>sentspace eval --where</code> "
        "takes, and <i>Only passing the filter</i> evaluates with it.",
        "Each chart counts the sentences passing the other columns' conditions, so a bar "
        "says how many its click would keep; the status line says how many of the "
        "corpus pass.",
        "Any corpus; columns of a run (region, misclassified, faithfulness) after Run.",
        "A sentence passes or fails whole: a condition on its pairs' labels keeps a "
        "sentence when any of its pairs has the label, so an evaluation of the pairs "
        "whose both sentences pass may keep far fewer pairs than the bar suggests.",
    ),
    "regions": Guide(
        "Regions: what each part of the map is about",
        "What are the sentences in this part of the projection about?",
        "The layout (or the embeddings) is split into nested regions by bisecting "
        "k-means, a few coarse regions split again into finer ones, each of a minimum "
        "size. Each region is labelled with the words most particular to it against the "
        "rest of the corpus (class-based TF-IDF, without each sentence language's stop "
        "words); the labels shown follow the zoom, coarse when the whole map is in view.",
        "A label is a region's most distinctive words, not a summary; the Regions column "
        "colours and filters by region, and its CSV export lists each sentence's regions.",
        "A run (a projection) of any corpus with text.",
        "Regions split the map where it is dense, whatever the groups: a region is a "
        "place on the map, not a class, and the split of a UMAP or t-SNE layout changes "
        "with its seed.",
    ),
    "explain": Guide(
        "Explain: why two sentences are close",
        "Which words make the encoder put these two sentences near each other?",
        "For additive encoders (bag of words, TF-IDF, word-vector means, Word2Vec, "
        "fastText) the cosine splits exactly into one part per word pair: each word's "
        "share is its row or column sum, and the shares add up to the cosine. Other "
        "encoders are explained by occlusion: a word's share is how much the cosine "
        "drops when it is left out of its sentence.",
        "Red words pull the sentences together, blue ones apart, white ones do nothing; "
        "the top word pairs show which words of one sentence meet which of the other "
        "(for sentence-transformers models, which tokens align).",
        "Two sentences (a pair, or a sentence and its neighbour) and a run's encoder.",
        "Occlusion shares do not add up to the cosine: leaving two words out is not the "
        "sum of leaving each out, so read them as a ranking, not as parts.",
    ),
    "fastsent": Guide(
        "Encoder: FastSent and FastSent+AE (fastsent, fastsent-ae)",
        "Does a sum of word vectors, trained so that a sentence predicts the words of its "
        "neighbours, put sentences about the same thing together (Hill et al. 2016)?",
        "Each word has a source and a target vector. A sentence is the sum of its source "
        "vectors, trained to predict every word of the previous and the next sentence "
        "(+AE: and its own) by negative sampling, frequent target words subsampled. "
        "Encoding is the sum of the trained vectors, as fast as the GloVe sum.",
        "The loss of each batch shows in the progress line; it should fall.",
        "Ordered text: <i>Train on</i> a text file, one sentence a line in reading "
        "order, a blank line ending a document (or <code>--encoder fastsent:FILE</code>).",
        "Trained on the corpus itself, shuffled paraphrases have no real neighbours: "
        "train on running text (speeches, books, reviews in order).",
    ),
    "dictrep": Guide(
        "Encoder: DictRep (dictrep-bow, dictrep-rnn)",
        "Does a network trained to map dictionary definitions onto the defined word's "
        "vector place sentences by meaning (Hill et al. 2016)?",
        "Each definition is read as a mean of learned word embeddings (bow) or by an "
        "LSTM (rnn) and mapped linearly into GloVe 50d space, with a cosine loss to the "
        "defined word's GloVe vector. A sentence's vector is that mapped output.",
        "Vectors live in GloVe's space: a definition lands near the word it defines.",
        "(word, definition) rows: <i>Train on</i> a tab-separated file with those two "
        "columns, or a table whose header names <code>word</code> and "
        "<code>definition</code> (WordNet's definitions), or "
        "<code>--encoder dictrep-bow:FILE</code>. CaptionRep (captionrep) is the same network "
        "trained on Multi30K's captions.",
        "Rows whose word has no GloVe vector (multi-word entries) are skipped; STS "
        "OnWN pairs are WordNet glosses, so exclude them from training before evaluating "
        "on them.",
    ),
    "captionrep": Guide(
        "Encoder: CaptionRep (captionrep, captionrep-rnn)",
        "Does a network trained to map each caption of an image onto that image's vector "
        "place sentences by what they describe (Hill et al. 2016)?",
        "DictRep's network (a mean of learned word embeddings, or an LSTM, mapped "
        "linearly) is trained with a cosine loss to map each of the five Multi30K "
        "descriptions of a Flickr30k image onto the image's vector: a row of your "
        "<code>captionrep?image_features=FILE.npy</code>, or without one a "
        "<b>stand-in</b> named in its name and results: the mean LSA vector (TF-IDF, "
        "truncated SVD) of the image's other four captions. It never trains on the "
        "corpus it encodes.",
        "Training ends with caption retrieval on Multi30K val (images never trained "
        "on): each caption looks for its image's other captions among all 5,070, as "
        "MRR and recall at 1 and 5, beside the untrained network.",
        "Multi30K task 2 (shared data). Image features: a .npy array of shape "
        "(29,000, D), row i the image on line i of "
        "<code>task2/image_splits/train_images.txt</code>.",
        "The stand-in knows only what the other describers wrote, not the image: its "
        "results are a caption-to-caption objective, not the paper's CaptionRep, and "
        "caption retrieval rewards it by construction.",
    ),
    "sdae": Guide(
        "Encoder: sequential (denoising) autoencoders (sae, sdae, sdae-embs)",
        "What does an LSTM that must rebuild a sentence from a damaged copy keep of it "
        "(Hill et al. 2016)?",
        "An LSTM reads the sentence after noise (each word deleted with probability "
        "0.1, each non-overlapping bigram swapped with probability 0.1; none for sae); "
        "a second LSTM, starting from the first one's final state, rebuilds the "
        "original with a sampled softmax. The final state is the sentence vector. "
        "sdae-embs reads fixed GloVe vectors.",
        "The loss (cross-entropy over the sampled candidates) should fall.",
        "Any sentences, in any order: the corpus or a text file, one sentence a line.",
        "These spaces tend to group sentences by form (length, word order) more than by "
        "topic, as the paper found; default sizes are small for a CPU.",
    ),
    "skipthought": Guide(
        "Encoder: SkipThought, uni-skip and combine-skip (skipthought, skipthought-combine)",
        "Does a recurrent encoder trained to generate the surrounding sentences learn "
        "transferable sentence vectors (Kiros et al. 2015)?",
        "A GRU reads the sentence; two GRU decoders, starting from its final state, "
        "generate the previous and the next sentence (sampled softmax). Words never "
        "seen in training but known to GloVe get embeddings through a least-squares map "
        "from GloVe space (vocabulary expansion). skipthought-combine adds a "
        "bidirectional GRU (each direction half the size) whose state starts the same "
        "decoders (combine-skip).",
        "The loss should fall; the sentence vector is the encoder's final state "
        "(combine-skip: the two encoders' states concatenated, twice the size).",
        "Ordered text, as for FastSent: one sentence a line in reading order, a blank "
        "line ending a document.",
        "The paper's model (2400-d, weeks on 74M sentences) is far beyond a CPU: the "
        "default is a small model, useful for comparing spaces trained alike.",
    ),
    "pair-trained": Guide(
        "Pair-trained encoders (pair-bow, pair-rnn, pair-finetune)",
        "What does a space look like when it is trained to tell entailment, paraphrase "
        "or relatedness apart (Triantafillou et al. 2016; InferSent; Sentence-BERT)?",
        "pair-bow (mean of word embeddings) or pair-rnn (a GRU) is trained with a "
        "classifier on [u, v, |u-v|, u*v] of the two sentences of each labelled pair "
        "(softmax over the classes), and scored pairs by regressing cos(u, v) onto the "
        "score; pair-finetune:BASE fine-tunes a sentence-transformers model (the "
        "bundled MiniLM) with SoftmaxLoss and CosineSimilarityLoss. Training shows "
        "progress per batch and can be cancelled.",
        "The sentence vector is the encoder's output; the classifier only trains it. "
        "Compare against bow or minilm on the same test split.",
        'A corpus with labelled or scored pairs (SICK, MSRP, STS), whose "train" '
        "split they learn from, or a pairs file (CSV/TSV with sentence1, sentence2, "
        "label and/or score): --encoder pair-bow:FILE. Evaluations train them on the "
        "training pairs only; relatedness with no split named evaluates the others.",
        "SICK repeats sentences (and 49 whole pairs) across its splits, so a "
        "pair-trained encoder has seen many test sentences, though never a test pair's "
        "gold. Fine-tuning MiniLM takes minutes per thousand pairs on a CPU.",
    ),
    "urae": Guide(
        "Encoder: recursive autoencoder (urae)",
        "What does composing word vectors up a binary tree, trained only to rebuild "
        "them, keep of a sentence (Socher et al. 2011; White et al. 2015)?",
        "Leaves are fixed GloVe 50d vectors (or a path: word-vector file) of unit length. "
        "Adjacent nodes merge greedily, the pair the decoder rebuilds best first, into a "
        "unit-length parent tanh(W[c1; c2] + b), until one root is left; no parser. "
        "Training lowers each parent's error in rebuilding its two children, weighted by "
        "their numbers of leaves, plus the root's error in rebuilding every leaf down "
        "the same tree.",
        "The sentence vector is the root (or, with vector=mean, the mean of every node). "
        "The loss should fall; a trained root finds a paraphrase of its sentence far "
        "more often than an untrained one, but far less often than the GloVe mean.",
        "Any sentences, in any order: the corpus or a text file, one sentence a line. "
        "Words without a word vector are left out.",
        "Better rebuilding does not mean a better space: on MSRP the root ranks "
        "paraphrases best after about two epochs on a thousand sentences, then worse.",
    ),
}

#: Menu titles of the guides, in menu order.
TITLES: dict[str, str] = {key: guide.title for key, guide in _GUIDES.items()}
#: Each guide as HTML, for a message box or a text browser.
GUIDES: dict[str, str] = {key: guide.html() for key, guide in _GUIDES.items()}
