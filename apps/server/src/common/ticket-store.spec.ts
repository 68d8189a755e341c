import { InProcessTicketStore } from './ticket-store';
import { describeTicketStoreContract } from './ticket-store.contract';

describeTicketStoreContract('InProcessTicketStore', () => Promise.resolve(new InProcessTicketStore(() => Date.now())));
