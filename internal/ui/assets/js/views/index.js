// index.js: the dashboard's views, in the order of the navigation. Each is
// a module of the shape app.js describes.

import signin from './signin.js';
import overview from './overview.js';
import queues from './queues.js';
import intent from './intent.js';
import senders from './senders.js';
// The engine views (processors, leader, committee, replicas) come next.
import processors from './processors.js';
import leader from './leader.js';
import committee from './committee.js';
import replicas from './replicas.js';

/** The views: the navigation lists those with nav !== false. */
export const views = [
  signin,
  overview,
  queues,
  intent,
  senders,
  // engine views
  processors,
  leader,
  committee,
  replicas,
];
