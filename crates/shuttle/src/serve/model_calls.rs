//! The model calls (`model_decide`, `model_ask`, `model_ground`): made by the daemon, which alone
//! holds the key, on a blocking thread, once each. A stop answers the caller at once; a reply
//! that comes after it is dropped.

use std::sync::Arc;

use desk::{Cancel, Done};
use desk_core::call::Kind;
use desk_core::call::model::ModelCall;
use desk_core::outcome::{Control, Outcome};
use desk_core::wire::Request;
use models::{AskArgs, DecideArgs, GroundArgs, ModelError, Models};
use serde_json::Value;

use super::daemon::Daemon;
use super::ended::Ended;
use crate::config::Config;

impl Daemon {
    /// Answers one model call of `request` with `config`'s models.
    pub(super) async fn model_call(
        &self,
        call: ModelCall,
        request: &Request,
        config: Arc<Config>,
    ) -> Ended {
        let cancel = Cancel::default();
        let _running = match self.stop.register(&cancel) {
            Ok(running) => running,
            Err(stopped) => {
                return Ended::not_run(Kind::Model, Outcome::refused_by(Control::Stop, stopped));
            }
        };
        let models = Models::new(config.models.clone()).with_keys(self.keys.clone());
        let args = request.args.clone();
        let task = tokio::task::spawn_blocking(move || answer(&models, call, &args));
        tokio::select! {
            joined = task => match joined {
                Ok(Ok(answer)) => Ended::completed(Kind::Model, Done::json(answer)),
                Ok(Err(error)) => Ended::failed(Kind::Model, error.to_string()),
                Err(join) => Ended::failed(
                    Kind::Model,
                    format!("the model call failed internally: {join}"),
                ),
            },
            () = self.stop.stopped() => Ended::failed(
                Kind::Model,
                "stopped by the user: the model call was abandoned; a reply that still comes \
                 is dropped"
                    .into(),
            ),
        }
    }
}

fn answer(models: &Models, call: ModelCall, args: &Value) -> Result<Value, ModelError> {
    let json = |value: Result<Value, serde_json::Error>| {
        value.map_err(|e| ModelError::Args(format!("cannot encode the answer: {e}")))
    };
    match call {
        ModelCall::Decide => json(serde_json::to_value(
            models.decide(&DecideArgs::parse(args)?)?,
        )),
        ModelCall::Ask => json(serde_json::to_value(
            models.ask(&AskArgs::parse(args)?, None)?,
        )),
        ModelCall::Ground => json(serde_json::to_value(
            models.ground(&GroundArgs::parse(args)?)?,
        )),
    }
}
