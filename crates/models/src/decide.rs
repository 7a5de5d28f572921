//! `decide`: questions about a state (text, JSON, or text and screenshots), answered with
//! probabilities.
//!
//! Through the chat endpoint, the model answers each question on a line of its own, `KEY:
//! ANSWER`, and the probabilities come from the log probabilities of each answer's first token.
//! An endpoint that sends none yields 1 for the answer given (and `from_logprobs: false`).
//! Through a decisions URL, the URL answers the probabilities itself.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::completion::{self, Served, Token, Usage};
use crate::config::Role;
use crate::endpoint::Models;
use crate::error::ModelError;

const SYSTEM: &str = "You judge the state of a computer desktop. Answer every question on a line \
of its own, in the order asked, as `KEY: ANSWER`, and write nothing else. A yes-or-no question's \
ANSWER is yes or no. A choice question's ANSWER is exactly one of its choices, as written; where \
the question lists none, the choice its instructions ask for, in a few words.";

/// What kind of answer a question wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionType {
    /// `noul`: yes or no; answered with the probability of yes.
    YesNo,
    /// `choice`: one of `choices`; answered with the choice and each choice's probability.
    Choice(Vec<String>),
    /// `choice` without a list: the instructions say what to choose from. Answered with the
    /// model's words as the choice, and the probability of their first token as its confidence.
    OpenChoice,
}

/// One question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Its key in the answers.
    pub key: String,
    /// Its kind.
    pub kind: QuestionType,
    /// What to judge.
    pub instructions: String,
    /// How to judge it, when the caller says.
    pub criteria: Option<String>,
}

/// `decide`'s arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct DecideArgs {
    /// The state, as chat content parts.
    pub state: Vec<Value>,
    /// The questions, in the caller's order.
    pub questions: Vec<Question>,
    /// Whether the state holds a screenshot: the verify role answers, else decide.
    pub image: bool,
    /// A cap on the configured timeout.
    pub timeout_ms: Option<u64>,
    /// The questions as the caller sent them, for a decisions URL.
    pub raw_questions: Value,
}

/// One question's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// A yes-or-no question's.
    YesNo {
        /// The probability of yes.
        probability: f64,
    },
    /// A choice question's.
    Choice {
        /// The choice given.
        choice: String,
        /// Its probability.
        confidence: f64,
        /// Every choice's probability.
        probabilities: Map<String, Value>,
    },
}

/// `decide`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecideReply {
    /// Each question's answer, by key, in the order asked.
    pub answers: Map<String, Value>,
    /// Whether the probabilities come from the model's log probabilities (or the decisions
    /// URL); `false`: the endpoint sent none, and the answer given counts as certain.
    pub from_logprobs: bool,
    /// Who answered.
    pub served: Served,
    /// What it cost.
    pub usage: Usage,
}

impl DecideArgs {
    /// Reads `model_decide`'s arguments: `state`, `questions`, `image?`, `timeout_ms?`.
    pub fn parse(args: &Value) -> Result<Self, ModelError> {
        let bad = |reason: String| ModelError::Args(format!("model_decide: {reason}"));
        let fields = args
            .as_object()
            .ok_or_else(|| bad("arguments must be an object with state and questions".into()))?;
        for key in fields.keys() {
            if !["state", "questions", "image", "timeout_ms"].contains(&key.as_str()) {
                return Err(bad(format!(
                    "unknown argument {key:?}; it takes state, questions, image and timeout_ms"
                )));
            }
        }
        let state = content(
            fields
                .get("state")
                .ok_or_else(|| bad("state is missing".into()))?,
        )
        .map_err(|e| bad(format!("state: {e}")))?;
        let raw_questions = fields
            .get("questions")
            .ok_or_else(|| bad("questions is missing".into()))?
            .clone();
        let entries = raw_questions
            .as_object()
            .filter(|q| !q.is_empty())
            .ok_or_else(|| {
                bad(
                    "questions must be a non-empty object of {key: {type, instructions, ...}}"
                        .into(),
                )
            })?;
        let questions = entries
            .iter()
            .map(|(key, q)| question(key, q).map_err(|e| bad(format!("questions.{key}: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let image = match fields.get("image") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad("image must be true or false".into())),
        };
        let timeout_ms = match fields.get("timeout_ms") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .filter(|ms| *ms > 0)
                    .ok_or_else(|| bad("timeout_ms must be a positive whole number".into()))?,
            ),
        };
        Ok(Self {
            state,
            questions,
            image,
            timeout_ms,
            raw_questions,
        })
    }
}

fn question(key: &str, value: &Value) -> Result<Question, String> {
    if key.is_empty() || key.contains(['\n', ':']) {
        return Err("a key must be non-empty, on one line, without ':'".into());
    }
    let fields = value
        .as_object()
        .ok_or("must be an object {type, instructions, criteria?, choices?}")?;
    for field in fields.keys() {
        if !["type", "instructions", "criteria", "choices"].contains(&field.as_str()) {
            return Err(format!(
                "unknown field {field:?}; a question has type, instructions, criteria and choices"
            ));
        }
    }
    let text = |name: &str| -> Result<Option<String>, String> {
        match fields.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("{name} must be a string")),
        }
    };
    let instructions = text("instructions")?
        .filter(|s| !s.trim().is_empty())
        .ok_or("instructions is missing")?;
    let criteria = text("criteria")?;
    let kind = match text("type")?.as_deref() {
        Some("noul") => {
            if fields.contains_key("choices") {
                return Err("a noul (yes-or-no) question takes no choices".into());
            }
            QuestionType::YesNo
        }
        Some("choice") if !fields.contains_key("choices") => QuestionType::OpenChoice,
        Some("choice") => {
            let choices: Vec<String> = fields
                .get("choices")
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .filter_map(|c| c.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let listed = fields
                .get("choices")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if choices.len() < 2
                || choices.len() != listed
                || choices
                    .iter()
                    .any(|c| c.trim().is_empty() || c.contains('\n'))
            {
                return Err(
                    "choices must be at least two one-line strings (or left out, for the \
                     instructions to name them)"
                        .into(),
                );
            }
            QuestionType::Choice(choices)
        }
        Some(other) => {
            return Err(format!(
                "type {other:?} is unknown; use \"noul\" (yes or no) or \"choice\""
            ));
        }
        None => return Err("type is missing; use \"noul\" (yes or no) or \"choice\"".into()),
    };
    Ok(Question {
        key: key.to_string(),
        kind,
        instructions,
        criteria,
    })
}

/// Chat content parts from a state: a string is one text part; a list holds strings, text
/// parts and `image_url` parts; anything else is sent as its JSON text.
pub(crate) fn content(state: &Value) -> Result<Vec<Value>, String> {
    let text = |t: &str| json!({"type": "text", "text": t});
    match state {
        Value::String(s) => Ok(vec![text(s)]),
        Value::Array(parts) => parts
            .iter()
            .enumerate()
            .map(|(i, part)| match part {
                Value::String(s) => Ok(text(s)),
                Value::Object(o) => match o.get("type").and_then(Value::as_str) {
                    Some("text") if o.get("text").is_some_and(Value::is_string) => Ok(part.clone()),
                    Some("image_url") if o.get("image_url").and_then(|u| u.get("url")).is_some_and(Value::is_string) => {
                        Ok(part.clone())
                    }
                    _ => Err(format!("part {i} must be a string, {{type: \"text\", text}} or {{type: \"image_url\", image_url: {{url}}}}")),
                },
                _ => Err(format!("part {i} must be a string or an object")),
            })
            .collect(),
        Value::Null => Err("must not be null".into()),
        other => Ok(vec![text(&other.to_string())]),
    }
}

impl Models {
    /// Answers `args`' questions, with one request.
    pub fn decide(&self, args: &DecideArgs) -> Result<DecideReply, ModelError> {
        let role = if args.image {
            Role::Verify
        } else {
            Role::Decide
        };
        let model = self
            .config
            .model(role)
            .ok_or(ModelError::NoModel { role: role.name() })?
            .to_string();
        let deadline = self.deadline(args.timeout_ms);
        if let Some(url) = self.config.decisions_url.clone().filter(|u| !u.is_empty()) {
            let body =
                json!({"model": model, "state": args.state, "questions": args.raw_questions});
            let reply = self.post(&url, &body, deadline)?;
            return from_decisions_url(&url, &model, args, &reply);
        }
        let url = self.chat_url();
        let mut parts = args.state.clone();
        parts.push(json!({"type": "text", "text": prompt(&args.questions)}));
        let body = completion::request(&model, SYSTEM, parts, true);
        let reply = self.post(&url, &body, deadline)?;
        let completion = completion::read(&url, &model, &reply)?;
        let (answers, from_logprobs) =
            answers(&url, &args.questions, &completion.text, &completion.tokens)?;
        Ok(DecideReply {
            answers,
            from_logprobs,
            served: completion.served,
            usage: completion.usage,
        })
    }
}

/// The questions as the model reads them.
fn prompt(questions: &[Question]) -> String {
    let mut text = String::from("Questions:\n");
    for q in questions {
        let kind = match &q.kind {
            QuestionType::YesNo => "yes or no".to_string(),
            QuestionType::Choice(choices) => format!("one of: {}", choices.join(" | ")),
            QuestionType::OpenChoice => "a choice, in a few words".to_string(),
        };
        text.push_str(&format!("- {} ({kind}): {}", q.key, q.instructions.trim()));
        if let Some(criteria) = q.criteria.as_deref().filter(|c| !c.trim().is_empty()) {
            text.push_str(&format!(" Criteria: {}", criteria.trim()));
        }
        text.push('\n');
    }
    text
}

/// Reads the model's `KEY: ANSWER` lines into answers, with probabilities from `tokens` when
/// they spell the text.
fn answers(
    url: &str,
    questions: &[Question],
    text: &str,
    tokens: &[Token],
) -> Result<(Map<String, Value>, bool), ModelError> {
    let bad = |reason: String| ModelError::BadReply {
        url: url.to_string(),
        reason,
    };
    let spelled =
        !tokens.is_empty() && tokens.iter().map(|t| t.text.as_str()).collect::<String>() == text;
    let mut answers = Map::new();
    for q in questions {
        let (at, given) = find_answer(text, &q.key).ok_or_else(|| {
            bad(format!(
                "the model did not answer {:?}: {:?}",
                q.key,
                crate::endpoint::excerpt(text)
            ))
        })?;
        let alternatives = if spelled { token_at(tokens, at) } else { None };
        let answer = match &q.kind {
            QuestionType::YesNo => {
                let yes = match normalise(given).as_str() {
                    a if a.starts_with("yes") => true,
                    a if a.starts_with("no") => false,
                    _ => {
                        return Err(bad(format!(
                            "the model answered {given:?} to the yes-or-no question {:?}",
                            q.key
                        )));
                    }
                };
                let probability = alternatives
                    .and_then(|top| {
                        let mass = |word: &str| mass_of(top, |alt| word.starts_with(alt));
                        let (y, n) = (mass("yes"), mass("no"));
                        (y + n > 0.0).then(|| y / (y + n))
                    })
                    .unwrap_or(if yes { 1.0 } else { 0.0 });
                Answer::YesNo {
                    probability: round(probability),
                }
            }
            QuestionType::OpenChoice => {
                let choice = given.trim_end_matches(|c: char| ".,;!".contains(c)).trim();
                if choice.is_empty() {
                    return Err(bad(format!("the model gave no choice for {:?}", q.key)));
                }
                let first = normalise(choice);
                let confidence = alternatives
                    .and_then(|top| {
                        let total = mass_of(top, |_| true);
                        let fits = mass_of(top, |alt| first.starts_with(alt));
                        (total > 0.0).then(|| fits / total)
                    })
                    .unwrap_or(1.0);
                Answer::Choice {
                    choice: choice.to_string(),
                    confidence: round(confidence),
                    probabilities: Map::from_iter([(choice.to_string(), json!(round(confidence)))]),
                }
            }
            QuestionType::Choice(choices) => {
                let chosen = choices
                    .iter()
                    .find(|c| normalise(c) == normalise(given))
                    .ok_or_else(|| {
                        bad(format!(
                            "the model answered {given:?} to {:?}, which is none of its choices",
                            q.key
                        ))
                    })?;
                let mut shares: Vec<f64> = choices
                    .iter()
                    .map(|c| if c == chosen { 1.0 } else { 0.0 })
                    .collect();
                if let Some(top) = alternatives {
                    let mut mass = vec![0.0; choices.len()];
                    for (alt, logprob) in top {
                        let alt = normalise(alt);
                        let fits: Vec<usize> = (0..choices.len())
                            .filter(|&i| {
                                !alt.is_empty() && normalise(&choices[i]).starts_with(&alt)
                            })
                            .collect();
                        // A first token several choices share counts for the one given, when
                        // it is one of them, else for all alike.
                        let fits = match fits.iter().find(|&&i| choices[i] == *chosen) {
                            Some(&i) if fits.len() > 1 => vec![i],
                            _ => fits,
                        };
                        for &i in &fits {
                            mass[i] += logprob.exp() / fits.len() as f64;
                        }
                    }
                    let total: f64 = mass.iter().sum();
                    if total > 0.0 {
                        shares = mass.iter().map(|m| m / total).collect();
                    }
                }
                let probabilities: Map<String, Value> = choices
                    .iter()
                    .zip(&shares)
                    .map(|(c, p)| (c.clone(), json!(round(*p))))
                    .collect();
                let confidence =
                    round(shares[choices.iter().position(|c| c == chosen).unwrap_or(0)]);
                Answer::Choice {
                    choice: chosen.clone(),
                    confidence,
                    probabilities,
                }
            }
        };
        answers.insert(
            q.key.clone(),
            serde_json::to_value(answer).unwrap_or(Value::Null),
        );
    }
    Ok((answers, spelled))
}

/// The byte offset and text of `key`'s answer: the rest of the first line `KEY: ...`.
fn find_answer<'t>(text: &'t str, key: &str) -> Option<(usize, &'t str)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let Some(colon) = line.find(':') else {
            continue;
        };
        let name = line[..colon]
            .trim()
            .trim_start_matches(['-', '*', '`', ' '])
            .trim_end_matches(['*', '`']);
        if name != key {
            continue;
        }
        let rest = &line[colon + 1..];
        let lead = rest.len() - rest.trim_start().len();
        let answer = rest.trim();
        return Some((start + colon + 1 + lead, answer));
    }
    None
}

/// The alternatives of the token that holds byte `at` of the text.
fn token_at(tokens: &[Token], at: usize) -> Option<&[(String, f64)]> {
    let mut end = 0;
    for token in tokens {
        end += token.text.len();
        if at < end {
            return Some(&token.top);
        }
    }
    None
}

fn mass_of(top: &[(String, f64)], fits: impl Fn(&str) -> bool) -> f64 {
    top.iter()
        .map(|(alt, logprob)| (normalise(alt), logprob))
        .filter(|(alt, _)| !alt.is_empty() && fits(alt))
        .map(|(_, logprob)| logprob.exp())
        .sum()
}

/// Lower case, without the punctuation and space around an answer.
fn normalise(text: &str) -> String {
    text.trim_matches(|c: char| c.is_whitespace() || ":.,;!\"'`*".contains(c))
        .to_lowercase()
}

fn round(p: f64) -> f64 {
    (p.clamp(0.0, 1.0) * 1e6).round() / 1e6
}

/// Checks a decisions URL's reply against the questions.
fn from_decisions_url(
    url: &str,
    model: &str,
    args: &DecideArgs,
    reply: &Value,
) -> Result<DecideReply, ModelError> {
    let bad = |reason: String| ModelError::BadReply {
        url: url.to_string(),
        reason,
    };
    let given = reply
        .get("answers")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("the reply has no answers object".into()))?;
    let probability = |v: Option<&Value>| {
        v.and_then(Value::as_f64)
            .filter(|p| (0.0..=1.0).contains(p))
    };
    let mut answers = Map::new();
    for q in &args.questions {
        let answer = given
            .get(&q.key)
            .ok_or_else(|| bad(format!("no answer for {:?}", q.key)))?;
        let checked = match &q.kind {
            QuestionType::YesNo => Answer::YesNo {
                probability: probability(answer.get("probability")).ok_or_else(|| {
                    bad(format!(
                        "{:?}: probability must be a number from 0 to 1",
                        q.key
                    ))
                })?,
            },
            QuestionType::Choice(_) | QuestionType::OpenChoice => {
                let listed = match &q.kind {
                    QuestionType::Choice(choices) => Some(choices),
                    _ => None,
                };
                let choice = answer
                    .get("choice")
                    .and_then(Value::as_str)
                    .filter(|c| !c.trim().is_empty())
                    .filter(|c| listed.is_none_or(|choices| choices.iter().any(|x| x == c)))
                    .ok_or_else(|| {
                        bad(format!("{:?}: choice must be one of its choices", q.key))
                    })?;
                let confidence = probability(answer.get("confidence")).ok_or_else(|| {
                    bad(format!(
                        "{:?}: confidence must be a number from 0 to 1",
                        q.key
                    ))
                })?;
                let probabilities = answer
                    .get("probabilities")
                    .and_then(Value::as_object)
                    .filter(|p| p.values().all(|v| probability(Some(v)).is_some()))
                    .cloned()
                    .ok_or_else(|| {
                        bad(format!(
                            "{:?}: probabilities must map choices to numbers from 0 to 1",
                            q.key
                        ))
                    })?;
                Answer::Choice {
                    choice: choice.to_string(),
                    confidence,
                    probabilities,
                }
            }
        };
        answers.insert(
            q.key.clone(),
            serde_json::to_value(checked).unwrap_or(Value::Null),
        );
    }
    let count = |key: &str| {
        reply
            .pointer(&format!("/usage/{key}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let mut served = completion::served(model, reply);
    if let Some(s) = reply.get("served") {
        served.build = s
            .get("build")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or(served.build);
        served.id = s
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or(served.id);
    }
    Ok(DecideReply {
        answers,
        from_logprobs: true,
        served,
        usage: Usage {
            model: model.to_string(),
            input_tokens: count("input_tokens"),
            output_tokens: count("output_tokens"),
            cached_tokens: count("cached_tokens"),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(questions: Value) -> DecideArgs {
        DecideArgs::parse(&json!({"state": "a dialog says Saved", "questions": questions})).unwrap()
    }

    fn tokens(parts: &[(&str, &[(&str, f64)])]) -> Vec<Token> {
        parts
            .iter()
            .map(|(text, top)| Token {
                text: text.to_string(),
                top: top.iter().map(|(t, p)| (t.to_string(), *p)).collect(),
            })
            .collect()
    }

    #[test]
    fn a_yes_answer_takes_its_probability_from_the_first_token() {
        let a = args(json!({"saved": {"type": "noul", "instructions": "Is it saved?"}}));
        let text = "saved: yes";
        let t = tokens(&[
            ("saved", &[("saved", 0.0)]),
            (":", &[(":", 0.0)]),
            (" yes", &[(" yes", (0.8f64).ln()), (" no", (0.2f64).ln())]),
        ]);
        let (answers, from) = answers("u", &a.questions, text, &t).unwrap();
        assert!(from);
        assert_eq!(answers["saved"], json!({"probability": 0.8}));
    }

    #[test]
    fn a_choice_spreads_its_probability_over_the_choices() {
        let a = args(
            json!({"next": {"type": "choice", "instructions": "Which button?", "choices": ["Save", "Cancel", "Save all"]}}),
        );
        let text = "next: Cancel\n";
        let t = tokens(&[
            ("next", &[]),
            (": ", &[]),
            (
                "Cancel",
                &[
                    ("Cancel", (0.6f64).ln()),
                    ("Save", (0.3f64).ln()),
                    ("Help", (0.1f64).ln()),
                ],
            ),
            ("\n", &[]),
        ]);
        let (answers, _) = answers("u", &a.questions, text, &t).unwrap();
        let answer = &answers["next"];
        assert_eq!(answer["choice"], "Cancel");
        // "Save" is the first token of two choices: neither is the answer, so they share it.
        assert_eq!(answer["probabilities"]["Save"], json!(round(0.15 / 0.9)));
        assert_eq!(
            answer["probabilities"]["Save all"],
            json!(round(0.15 / 0.9))
        );
        assert_eq!(answer["confidence"], json!(round(0.6 / 0.9)));
    }

    #[test]
    fn without_logprobs_the_answer_given_counts_as_certain() {
        let a = args(
            json!({"ok": {"type": "noul", "instructions": "OK?"}, "pick": {"type": "choice", "instructions": "?", "choices": ["a", "b"]}}),
        );
        let (answers, from) = answers("u", &a.questions, "- **ok**: No.\npick: B\n", &[]).unwrap();
        assert!(!from);
        assert_eq!(answers["ok"], json!({"probability": 0.0}));
        assert_eq!(
            answers["pick"],
            json!({"choice": "b", "confidence": 1.0, "probabilities": {"a": 0.0, "b": 1.0}})
        );
    }

    #[test]
    fn a_choice_without_choices_takes_the_models_words_and_its_first_tokens_share() {
        // The spec's shape: {type, instructions, criteria?}, the options in the instructions.
        let a = args(
            json!({"next": {"type": "choice", "instructions": "Which button ends the wizard: Finish, Next or Cancel?"}}),
        );
        assert_eq!(a.questions[0].kind, QuestionType::OpenChoice);
        let t = tokens(&[
            ("next", &[]),
            (": ", &[]),
            (
                "Finish",
                &[("Finish", (0.7f64).ln()), ("Next", (0.3f64).ln())],
            ),
            (".\n", &[]),
        ]);
        let (answers, _) = answers("u", &a.questions, "next: Finish.\n", &t).unwrap();
        assert_eq!(
            answers["next"],
            json!({"choice": "Finish", "confidence": round(0.7), "probabilities": {"Finish": round(0.7)}})
        );
    }

    #[test]
    fn an_answer_missing_or_off_the_choices_is_an_error() {
        let a = args(json!({"ok": {"type": "noul", "instructions": "OK?"}}));
        assert!(
            answers("u", &a.questions, "other: yes", &[])
                .unwrap_err()
                .to_string()
                .contains("did not answer \"ok\"")
        );
        assert!(
            answers("u", &a.questions, "ok: maybe", &[])
                .unwrap_err()
                .to_string()
                .contains("answered \"maybe\"")
        );
    }

    #[test]
    fn malformed_arguments_say_what_to_pass() {
        let cases = [
            (json!({"questions": {}}), "state is missing"),
            (
                json!({"state": "s", "questions": {}}),
                "questions must be a non-empty object",
            ),
            (
                json!({"state": "s", "questions": {"k": {"type": "maybe", "instructions": "?"}}}),
                "type \"maybe\" is unknown",
            ),
            (
                json!({"state": "s", "questions": {"k": {"type": "choice", "instructions": "?", "choices": ["one"]}}}),
                "at least two",
            ),
            (
                json!({"state": "s", "questions": {"k": {"type": "noul"}}}),
                "instructions is missing",
            ),
            (
                json!({"state": [{"type": "image"}], "questions": {"k": {"type": "noul", "instructions": "?"}}}),
                "part 0 must be",
            ),
            (
                json!({"state": "s", "questions": {"k": {"type": "noul", "instructions": "?"}}, "timeout_ms": 0}),
                "timeout_ms must be",
            ),
            (
                json!({"state": "s", "questions": {"k": {"type": "noul", "instructions": "?"}}, "model": "x"}),
                "unknown argument \"model\"",
            ),
        ];
        for (args, expected) in cases {
            let error = DecideArgs::parse(&args).unwrap_err().to_string();
            assert!(error.contains(expected), "{args}: {error}");
            assert!(error.ends_with("nothing was sent"), "{error}");
        }
    }

    #[test]
    fn a_json_state_is_sent_as_its_text() {
        assert_eq!(
            content(&json!({"a": 1})).unwrap(),
            vec![json!({"type": "text", "text": "{\"a\":1}"})]
        );
    }
}
